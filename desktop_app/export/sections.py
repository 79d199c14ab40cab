"""The parts of the exported page below the tree: the chat of the active path, the compaction
audits, the branch summaries and the labels. Each is HTML built from the app's own presenters
(the chat's row renderer, the audit and its words), all session text escaped."""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from desktop_app.compaction.audit import audit_compaction, branch_summary_info
from desktop_app.present.audit_words import audit_words_of, checkpoint_words, split_summary
from desktop_app.present.chat_messages import collapsible_sections, message_kind, message_status
from desktop_app.present.chat_render import Sections, render_message
from desktop_app.present.chat_theme import LIGHT
from desktop_app.present.text import entry_text
from desktop_app.session.context import message_from_entry
from desktop_app.session.entries import Entry
from desktop_app.session.kinds import EntryKind, Role, kind_of
from desktop_app.session.profile import PiProfile
from desktop_app.session.tree import SessionIndex
from desktop_app.tools.display import shown_text as as_text

from .tree_svg import anchor_id
from .web_markdown import web_markdown, web_markdown_parts

__all__ = ["PAGE_SECTIONS", "branch_summaries_html", "chat_html", "compactions_html", "labels_html"]

#: A row's sections as ``<details>``, and bodies cut shorter than the chat's: a page of 300 tool
#: results stays a few megabytes.
PAGE_SECTIONS = Sections(details=True, max_lines=60, max_chars=6_000, clipped="the session file has the whole text")
#: Entries that say something as one dim line in the chat (the rest of the bookkeeping is left out).
_NOTE_KINDS = frozenset({EntryKind.MODEL_CHANGE, EntryKind.THINKING_LEVEL_CHANGE, EntryKind.SESSION_INFO, EntryKind.CONTEXT_EDIT})



def _e(value: object) -> str:
    """Session text escaped; a value of another type than the file should hold (a list as a label,
    say: pi keeps what it reads) is shown as the chat shows it, never a crash of the export."""
    return html.escape(as_text(value))


def _row(entry_id: str, message: dict[str, Any], label: str | None) -> str:
    kind = message_kind(message)
    bubble = LIGHT.bubble(kind, message_status(message), bool(message.get("isError")))
    flag = f'<p class="flag">⚑ {_e(label)}</p>' if label else ""
    body = render_message(
        message,
        LIGHT,
        frozenset(collapsible_sections(message)),
        markdown=web_markdown_parts,
        sections=PAGE_SECTIONS,
    )
    return (
        f'<article class="msg" id="{anchor_id(entry_id)}" style="background:{bubble.fill}; '
        f'border-color:{bubble.border}; border-left-color:{bubble.accent};">{flag}{body}</article>'
    )


def chat_html(
    path: Sequence[Entry], labels: dict[Any, str], limit: int, tick: Callable[[], None] | None = None
) -> tuple[str, set[str]]:
    """The chat of ``path`` (root → leaf), newest ``limit`` entries at most; and the ids it shows."""
    shown: set[str] = set()
    out: list[str] = []
    start = max(0, len(path) - limit)
    while 0 < start < len(path) - 1 and not is_user_message(path[start]):
        start += 1  # a cut chat starts at a turn, not in the middle of one
    if start:
        out.append(
            f'<p class="note">The path holds {len(path):,} entries; the oldest {start:,} are left out of this '
            "page to keep it small (the session file has them; the compactions below summarize them).</p>"
        )
    for n, entry in enumerate(path[start:]):
        if tick is not None and n % 200 == 0:
            tick()
        entry_id = entry.get("id")
        if not isinstance(entry_id, str):
            continue
        kind = kind_of(entry)
        message = message_from_entry(entry)
        if message is not None:
            out.append(_row(entry_id, message, labels.get(entry_id)))
            shown.add(entry_id)
        elif kind in _NOTE_KINDS:
            out.append(f'<p class="note" id="{anchor_id(entry_id)}">{_e(entry_text(entry))}</p>')
            shown.add(entry_id)
    return "\n".join(out), shown


def _tokens(value: int | float | None) -> str:
    return "unknown" if value is None else f"{value:,.0f}"


def _range(ids: Sequence[str], index: SessionIndex) -> str:
    """``first … last`` of a band of entries, each linked to its place in the page."""
    if not ids:
        return "none"

    def one(entry_id: str) -> str:
        entry = index.by_id.get(entry_id)
        text = entry_text(entry) if entry is not None else ""
        short = text if len(text) <= 70 else text[:69] + "…"
        return f'<a href="#{anchor_id(entry_id)}"><code>{_e(entry_id)}</code></a> {_e(short)}'

    return one(ids[0]) if len(ids) == 1 else f"{one(ids[0])} … {one(ids[-1])}"


def _files(title: str, files: Iterable[str]) -> str:
    items = "".join(f"<li><code>{_e(f)}</code></li>" for f in files)
    return f"<dt>{title}</dt><dd>{f'<ul>{items}</ul>' if items else '(none)'}</dd>"


def compactions_html(index: SessionIndex, ids: Sequence[str], on_path: set[str], profile: PiProfile) -> str:
    """One audit per compaction, the active path's first (newest first), then the other branches'
    (newest first): what it summarized, what it kept, files, summary."""
    out: list[str] = []
    newest_first = list(reversed(ids))
    ordered = [c for c in newest_first if c in on_path] + [c for c in newest_first if c not in on_path]
    for compaction_id in ordered:
        audit = audit_compaction(index, compaction_id, profile)
        words = audit_words_of(audit)
        summary, read, modified = split_summary(audit.summary)
        where = "on the active path" if compaction_id in on_path else "on another branch"
        split = f"<dt>Split turn</dt><dd>{_e(words.split)}</dd>" if words.split else ""
        checkpoint = (
            f"<dt>System prompt</dt><dd>{_e(checkpoint_words(audit.system_message, len(audit.checkpoint_ids)))}</dd>"
            if audit.system_message is not None
            else ""
        )
        out.append(
            f'<section class="audit" id="{anchor_id(compaction_id)}">'
            f"<h3>◆ Compaction <code>{_e(compaction_id)}</code> · {_tokens(audit.tokens_before)} tokens before · {where}</h3>"
            f"<dl><dt>Made by</dt><dd>{_e(audit.made_by)}</dd>"
            f"<dt>Summarized</dt><dd>{_e(words.above.removeprefix('▲ '))}: {_range(audit.summarized_ids, index)}</dd>"
            f"<dt>Kept</dt><dd>{_e(words.below.removeprefix('▼ '))}: {_range(audit.kept_ids, index)}</dd>"
            f"<dt>First kept</dt><dd>{_e(words.first_kept)} (entry <code>{_e(audit.first_kept_entry_id or 'none')}</code>)</dd>"
            f"{split}{checkpoint}"
            f"{_files('Files read', audit.read_files or read)}{_files('Files modified', audit.modified_files or modified)}</dl>"
            f'<div class="summary"><h4>Summary (what the model reads instead of the summarized entries)</h4>'
            f"{web_markdown(summary)}</div></section>"
        )
    return "\n".join(out)


def branch_summaries_html(index: SessionIndex, ids: Sequence[str]) -> str:
    """Each branch summary: who made it, the branch it stands for, its files and its text."""
    out: list[str] = []
    for entry_id in reversed(ids):
        info = branch_summary_info(index, entry_id)
        summary, read, modified = split_summary(info.summary)
        out.append(
            f'<section class="audit branch" id="{anchor_id(entry_id)}">'
            f"<h3>↩ Branch summary <code>{_e(entry_id)}</code></h3>"
            f"<dl><dt>Made by</dt><dd>{_e(info.made_by)}</dd>"
            f"<dt>Abandoned branch</dt><dd><code>{_e(info.abandoned_text)}</code></dd>"
            f"{_files('Files read', info.read_files or read)}{_files('Files modified', info.modified_files or modified)}</dl>"
            f'<div class="summary">{web_markdown(summary)}</div></section>'
        )
    return "\n".join(out)


def labels_html(index: SessionIndex, linked: set[str]) -> str:
    """A table of every label: the label, the entry's kind and words, a link when the page shows it."""
    rows = []
    for entry_id, label in index.labels.items():
        entry = index.by_id.get(entry_id)
        text = entry_text(entry) if entry is not None else "(entry not in the file)"
        ref = f'<a href="#{anchor_id(entry_id)}"><code>{_e(str(entry_id))}</code></a>' if entry_id in linked else f"<code>{_e(str(entry_id))}</code>"
        rows.append(f"<tr><td>⚑ {_e(label)}</td><td>{ref}</td><td>{_e(text[:160])}</td></tr>")
    if not rows:
        return "<p>No labels.</p>"
    return f"<table class=\"labels\"><tr><th>Label</th><th>Entry</th><th>What it says</th></tr>{''.join(rows)}</table>"


def is_user_message(entry: Entry) -> bool:
    message = entry.get("message")
    return kind_of(entry) is EntryKind.MESSAGE and isinstance(message, dict) and message_kind(message) is Role.USER
