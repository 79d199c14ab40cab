"""One message → the HTML of its row (Qt rich text), given which sections are expanded.

Kept apart from the delegate so what a row *says* is testable without painting. Collapsible
sections are paragraphs holding an ``arbor:toggle/N`` link; the delegate turns a click anywhere on
such a line into ``ChatModel.toggle(row, N)``. Markdown becomes HTML through the function the caller
passes (:class:`MarkdownParts`): the chat's is ``ui.markdown.markdown_parts``, where Qt parses the
prose and no ``<img>`` is ever produced.
"""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol, assert_never

from desktop_app.present.chat_messages import (
    content_blocks,
    edit_mark,
    first_line,
    format_count,
    hard_line_breaks,
    joined_text,
    message_kind,
    message_status,
    plain_preview,
    pretty_json,
    system_line,
    tool_call_summary,
)
from desktop_app.present.chat_theme import ChatTheme
from desktop_app.present.file_changes import checkpoint_note
from desktop_app.present.markdown_html import code_block_html, escape
from desktop_app.present.pi16_words import EDIT_OMITTED, system_text
from desktop_app.session.kinds import BlockKind, Role, block_kind
from desktop_app.tools.display import shown_text as as_text
from desktop_app.tools.registry import call_view

__all__ = [
    "CHAT_SECTIONS",
    "TOGGLE_SCHEME",
    "MarkdownParts",
    "Sections",
    "render_message",
    "render_parts",
    "toggle_href",
    "parse_toggle",
]


class MarkdownParts(Protocol):
    """Markdown text → its HTML one part at a time (a code block, a chunk of prose), lazily."""

    def __call__(self, text: str, *, dark: bool) -> Iterable[str]: ...


TOGGLE_SCHEME = "arbor:toggle/"
MAX_LINES = 400
MAX_CHARS = 40_000

_EXT_LANG = {
    ".py": "python",
    ".js": "javascript",
    ".ts": "javascript",
    ".tsx": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".json": "json",
    ".sh": "bash",
    ".rs": "rust",
    ".go": "go",
    ".c": "c",
    ".h": "c",
    ".cpp": "c",
    ".hpp": "c",
    ".java": "java",
    ".kt": "java",
    ".yml": "yaml",
    ".yaml": "yaml",
    ".toml": "toml",
    ".sql": "sql",
    ".html": "html",
    ".xml": "html",
    ".css": "css",
    ".md": None,
}


@dataclass(frozen=True)
class Sections:
    """How a row's collapsible sections are written, and how much of a long text a row holds.

    The chat's (:data:`CHAT_SECTIONS`): a section is a line with an ``arbor:toggle/N`` link the
    delegate turns into a click; only expanded sections carry their body. A web page's
    (``details=True``): every section is an HTML ``<details>`` element holding its body, closed
    until the reader opens it, so the page needs no script (the caller passes every section as
    expanded so their bodies are there)."""

    details: bool = False
    max_lines: int = MAX_LINES  #: longest code or output body, in lines
    max_chars: int = MAX_CHARS  #: ... and in characters
    clipped: str = "Copy gets the whole text"  #: what the note under a cut body adds


CHAT_SECTIONS = Sections()


def toggle_href(section: int) -> str:
    return f"{TOGGLE_SCHEME}{section}"


def parse_toggle(href: str) -> int | None:
    """The section of an ``arbor:toggle/N`` link, or ``None`` for any other link."""
    if href.startswith(TOGGLE_SCHEME):
        tail = href[len(TOGGLE_SCHEME) :]
        if tail.isdigit():
            return int(tail)
    return None


def clip(
    text: str, max_lines: int = MAX_LINES, max_chars: int = MAX_CHARS, whole: str = CHAT_SECTIONS.clipped
) -> tuple[str, str]:
    """``text`` cut to what a row can lay out quickly, and a note saying what was left out
    (``whole``: where the whole text is to be had)."""
    lines = text.count("\n") + 1
    if lines <= max_lines and len(text) <= max_chars:
        return text, ""
    kept = "\n".join(text.split("\n", max_lines)[:max_lines])[:max_chars]
    omitted = lines - (kept.count("\n") + 1)
    what = f"{omitted:,} more lines" if omitted > 0 else f"{len(text) - len(kept):,} more characters"
    return kept, f"… {what} not shown ({whole})"


class _Html:
    """Small builder for the rich-text subset Qt renders well.

    Markdown and code are added as *deferred* parts (a function giving their HTML pieces), so that
    building the row's outline costs nothing and the expensive pieces can be produced one at a
    time (:meth:`iter_parts`), spread over event-loop turns for a long message.
    """

    def __init__(self, theme: ChatTheme, markdown_parts: MarkdownParts, sections: Sections = CHAT_SECTIONS) -> None:
        self.theme = theme
        self.markdown_parts = markdown_parts
        self.sections = sections
        self.parts: list[str | Callable[[], Iterable[str]]] = []
        self._open_details = False  # a <details> section is open (web page sections only)

    def add(self, html: str) -> None:
        self.parts.append(html)

    def header(self, label: str, accent: str, extra: str = "") -> None:
        extra_html = f' <span style="color:{self.theme.dim};">{extra}</span>' if extra else ""
        self.add(
            f'<p style="margin-top:0px; margin-bottom:3px;"><span style="color:{accent}; font-weight:700; '
            f'font-size:small;">{escape(label)}</span>{extra_html}</p>'
        )

    def toggle(
        self, section: int, expanded: bool, title: str, preview: str = "", color: str = "", *, wrap: bool = False
    ) -> None:
        arrow = "▾" if expanded else "▸"
        color = color or self.theme.dim
        if self.sections.details:
            self._details(title, preview, color)
            return
        preview_html = (
            f' <span style="color:{self.theme.dim};">{escape(preview)}</span>'
            if preview and not expanded
            else ""
        )
        # One line, clipped at the row edge rather than wrapped: a list of collapsed tool calls
        # should read like a list (a click shows it all). A banner (``wrap``) wraps instead.
        self.add(
            f'<p style="margin-top:2px; margin-bottom:2px; white-space:{"normal" if wrap else "nowrap"};">'
            f'<a href="{toggle_href(section)}" '
            f'style="color:{color}; text-decoration:none;">{arrow} <b>{escape(title)}</b></a>{preview_html}</p>'
        )

    def _details(self, title: str, preview: str, color: str) -> None:
        """A web page's section: ``<details>`` whose summary is the title and preview; the body
        follows until :meth:`end_section` (or the row's end)."""
        self.end_section()
        preview_html = f' <span style="color:{self.theme.dim};">{escape(preview)}</span>' if preview else ""
        self.add(
            f'<details style="margin-top:2px; margin-bottom:2px;"><summary style="cursor:pointer;">'
            f'<b style="color:{color};">{escape(title)}</b>{preview_html}</summary>'
        )
        self._open_details = True

    def end_section(self) -> None:
        """The end of a section's body (a web page's ``</details>``; nothing in the chat)."""
        if self._open_details:
            self.add("</details>")
            self._open_details = False

    def note(self, text: str, color: str = "", italic: bool = True) -> None:
        style = f"color:{color or self.theme.dim};" + (" font-style:italic;" if italic else "")
        self.add(f'<p style="margin-top:2px; margin-bottom:2px; {style}">{escape(text)}</p>')

    def pre_text(self, text: str, color: str = "", italic: bool = False) -> None:
        style = f"color:{color or self.theme.text};" + (" font-style:italic;" if italic else "")
        body = escape(text).replace("\n", "<br/>")
        self.add(f'<p style="margin-top:2px; margin-bottom:4px; white-space:pre-wrap; {style}">{body}</p>')

    def code(self, text: str, language: str | None = None) -> None:
        limits = self.sections
        kept, note = clip(text, limits.max_lines, limits.max_chars, limits.clipped)
        dark = self.theme.dark
        self.parts.append(lambda: (code_block_html(kept, language, dark=dark),))
        if note:
            self.note(note)

    def markdown(self, text: str) -> None:
        if not text.strip():
            return
        kept, note = clip(text, max_lines=4000, max_chars=200_000, whole=self.sections.clipped)
        dark = self.theme.dark
        markdown_parts = self.markdown_parts
        self.parts.append(lambda: markdown_parts(kept, dark=dark))
        if note:
            self.note(note)

    def box(self, text: str, fill: str, color: str) -> None:
        self.add(
            f'<table width="100%" cellspacing="0" cellpadding="6" bgcolor="{fill}" style="margin-top:4px;">'
            f'<tr><td style="color:{color};">{escape(text).replace(chr(10), "<br/>")}</td></tr></table>'
        )

    def iter_parts(self) -> Iterator[str]:
        """The row's HTML piece by piece, deferred parts produced only when reached."""
        self.end_section()
        for part in self.parts:
            if isinstance(part, str):
                yield part
            else:
                yield from part()

    def html(self) -> str:
        return "\n".join(self.iter_parts())


def _time(message: dict[str, Any]) -> str:
    stamp = message.get("timestamp")
    if isinstance(stamp, (int, float)) and not isinstance(stamp, bool):
        try:
            return _dt.datetime.fromtimestamp(stamp / 1000).strftime("%b %d, %H:%M")
        except (OverflowError, OSError, ValueError):
            return ""
    return ""


def _images(message: dict[str, Any], out: _Html) -> None:
    for block in content_blocks(message):
        if block_kind(block) is BlockKind.IMAGE:
            out.note(f"[image: {as_text(block.get('mimeType')) or 'image'} — shown in the file, not here]")


def _language_for_path(path: str) -> str | None:
    return _EXT_LANG.get(os.path.splitext(path)[1].lower())


def _tool_call_body(block: dict[str, Any], out: _Html) -> None:
    arguments = block.get("arguments")
    if not isinstance(arguments, dict):
        partial = block.get("partialJson")
        out.code(as_text(partial) if partial else pretty_json(arguments), "json")
        return
    view = call_view(as_text(block.get("name")), arguments)
    if view is None:
        out.code(pretty_json(arguments), "json")
        return
    if view.path is not None:
        out.note(view.path, italic=False)
    out.code(view.code, view.language or _language_for_path(view.path or ""))


def _thinking(block: dict[str, Any], is_open: bool, section: int, out: _Html) -> None:
    """A thinking block: a note when the provider redacted it, else a section that opens on a click."""
    if block.get("redacted"):
        out.note("Thinking (redacted by the provider)")
        return
    thinking = as_text(block.get("thinking"))
    out.toggle(section, is_open, "Thinking", plain_preview(thinking) or "…")
    if is_open:
        out.add(f'<div style="color:{out.theme.dim}; font-style:italic;">')
        out.markdown(thinking)
        out.add("</div>")
    out.end_section()


def _assistant(message: dict[str, Any], expanded: frozenset[int], streaming: bool, out: _Html) -> None:
    theme = out.theme
    status = "streaming" if streaming else message_status(message)
    bubble = theme.bubble(Role.ASSISTANT, status)
    model = as_text(message.get("model"))
    out.header("Assistant", bubble.accent, escape(" · ".join(x for x in (model, _time(message)) if x)))
    for i, block in enumerate(content_blocks(message)):
        match block_kind(block):
            case BlockKind.TEXT:
                out.markdown(as_text(block.get("text")))
            case BlockKind.THINKING:
                _thinking(block, i in expanded, i, out)
            case BlockKind.TOOL_CALL:
                name, summary = tool_call_summary(block)
                is_open = i in expanded
                out.toggle(i, is_open, name or "tool call", summary, color=theme.tool.accent)
                if is_open:
                    _tool_call_body(block, out)
                out.end_section()
            case BlockKind.IMAGE:
                out.note("[image]")
            case BlockKind.UNKNOWN:
                if block.get("type") == "redacted_thinking":  # the Anthropic API's name, seen in hand-made files
                    out.note("Thinking (redacted by the provider)")
            case _ as unreachable:
                assert_never(unreachable)
    error = as_text(message.get("errorMessage"))
    if status == "error":
        out.box("⚠ Error" + (f": {error}" if error else ""), theme.error.fill, theme.error.accent)
    elif status == "aborted":
        out.box("■ Aborted" + (f": {error}" if error else ""), theme.aborted.fill, theme.aborted.accent)
    elif status == "streaming":
        out.note("▍ streaming…")
    elif message.get("stopReason") == "length":
        out.note("Stopped: the reply hit the output token limit")


def _tool_result(message: dict[str, Any], expanded: frozenset[int], out: _Html) -> None:
    theme = out.theme
    failed = bool(message.get("isError"))
    bubble = theme.bubble("toolResult", is_error_result=failed)
    name = as_text(message.get("toolName")) or "tool"
    text = joined_text(message).rstrip("\n")
    lines = text.count("\n") + 1 if text else 0
    title = f"{'✗' if failed else '✓'} {name} {'failed' if failed else 'result'}"
    # The line count first: the preview may be clipped at the row's edge, the count should not be.
    count = f"{lines:,} lines · " if lines > 1 else ""
    detail = count + first_line(text, 100) if text else "(no output)"
    details = message.get("details")
    diff = details.get("diff") if isinstance(details, dict) else None
    if isinstance(diff, str) and diff:
        added, removed = _diff_counts(diff)
        detail = f"+{added} −{removed} · " + detail
    is_open = 0 in expanded
    out.toggle(0, is_open, title, detail, color=bubble.accent)
    note = checkpoint_note(message)
    if note:  # issue 25: the snapshot around this call failed; said on the card, open or not
        out.note("⚠ " + note)
    if is_open:
        if text:
            out.code(text)
        if isinstance(diff, str) and diff:
            out.code(diff, "diff")  # an edit's change (pi's details.diff)
        _images(message, out)
    out.end_section()


def _diff_counts(diff: str) -> tuple[int, int]:
    """Lines added and removed in pi's edit diff (``+12 text`` / ``-12 text`` lines)."""
    lines = diff.split("\n")
    return sum(1 for line in lines if line.startswith("+")), sum(1 for line in lines if line.startswith("-"))


def _bash(message: dict[str, Any], expanded: frozenset[int], out: _Html) -> None:
    theme = out.theme
    command = as_text(message.get("command"))
    facts = []
    exit_code = message.get("exitCode")
    if message.get("cancelled"):
        facts.append("cancelled")
    elif isinstance(exit_code, (int, float)) and not isinstance(exit_code, bool):
        facts.append(f"exit {format_count(exit_code)}")
    if message.get("excludeFromContext"):
        facts.append("not sent to the model (!!)")
    out.header("Shell", theme.bash.accent, escape(" · ".join(x for x in [*facts, _time(message)] if x)))
    out.add(
        f'<p style="margin-top:0px; margin-bottom:2px;"><span style="font-family:monospace; '
        f'color:{theme.text};">$ {escape(command)}</span></p>'
    )
    output = as_text(message.get("output")).rstrip("\n")
    lines = output.count("\n") + 1 if output else 0
    is_open = 0 in expanded
    out.toggle(
        0, is_open, "output", f"{lines:,} line{'s' if lines != 1 else ''}" if output else "(no output)"
    )
    if is_open and output:
        out.code(output)
        if message.get("truncated"):
            out.note(f"Output truncated; full output: {as_text(message.get('fullOutputPath'))}")
    out.end_section()


def _summary_card(message: dict[str, Any], kind: Role, expanded: frozenset[int], out: _Html) -> None:
    theme = out.theme
    bubble = theme.bubble(kind)
    if kind is Role.COMPACTION_SUMMARY:
        title = f"◆ Compacted from {format_count(message.get('tokensBefore'))} tokens"
        hint = "click to read the summary"
    else:
        title = "↩ Branch summary"
        hint = "of the branch this conversation came back from"
    is_open = 0 in expanded
    out.toggle(0, is_open, title, hint, color=bubble.accent, wrap=True)  # a banner: never cut
    if is_open:
        out.markdown(as_text(message.get("summary")))
    out.end_section()


def _system_card(message: dict[str, Any], expanded: frozenset[int], out: _Html) -> None:
    """pi 1.6.0's system prompt (or a change to it): collapsed, the summary of what it says or
    changes; expanded, the whole text (instructions, sections, tools)."""
    bubble = out.theme.bubble("system")
    line = system_line(message)
    head, _, rest = line.partition(" · ")
    is_open = 0 in expanded
    out.toggle(0, is_open, f"⚙ {line if is_open else head}", rest, color=bubble.accent)
    if is_open:
        text, note = clip(system_text(message) or "(empty)", whole=out.sections.clipped)
        out.pre_text(text)
        if note:
            out.note(note)
    out.end_section()


def _edit_banner(mark: dict[str, Any], out: _Html) -> None:
    """What a context edit did to this row (pi 1.6.0): the model no longer receives it, or
    receives the replacement shown below instead of the original."""
    theme = out.theme
    edit = as_text(mark.get("editId"))
    if mark.get("state") == EDIT_OMITTED:
        text = f"⊘ Omitted by context edit {edit}: the model no longer receives this message"
    else:
        original = first_line(as_text(mark.get("original")), 90)
        text = f"✎ Replaced by context edit {edit}: the model receives the text below" + (
            f" instead of “{original}”" if original else ""
        )
    out.add(
        f'<p style="margin-top:0px; margin-bottom:4px;"><span style="color:{theme.edit.accent}; '
        f'font-weight:700; font-size:small;">{escape(text)}</span></p>'
    )


def render_message(
    message: Any,
    theme: ChatTheme,
    expanded: frozenset[int] = frozenset(),
    *,
    markdown: MarkdownParts,
    streaming: bool = False,
    sections: Sections = CHAT_SECTIONS,
) -> str:
    """The HTML of a row: a small header, the content, collapsible sections as toggle lines (or,
    for a web page, ``<details>``: see :class:`Sections`)."""
    return "\n".join(render_parts(message, theme, expanded, markdown=markdown, streaming=streaming, sections=sections))


def render_parts(
    message: Any,
    theme: ChatTheme,
    expanded: frozenset[int] = frozenset(),
    *,
    markdown: MarkdownParts,
    streaming: bool = False,
    sections: Sections = CHAT_SECTIONS,
) -> Iterator[str]:
    """:func:`render_message` lazily, one top-level HTML piece at a time (joined with ``"\n"``
    they are exactly its result): the expensive pieces (a markdown chunk, a highlighted code
    block) are produced only when the iterator reaches them."""
    return _outline(message, theme, expanded, streaming, markdown, sections).iter_parts()


def _outline(
    message: Any,
    theme: ChatTheme,
    expanded: frozenset[int],
    streaming: bool,
    markdown: MarkdownParts,
    sections: Sections = CHAT_SECTIONS,
) -> _Html:
    out = _Html(theme, markdown, sections)
    kind = message_kind(message)
    mark = edit_mark(message)
    if mark is not None:
        _edit_banner(mark, out)
    match kind:
        case Role.USER:
            out.header("You", theme.user.accent, escape(_time(message)))
            out.markdown(hard_line_breaks(joined_text(message)))
            _images(message, out)
        case Role.ASSISTANT:
            _assistant(message, expanded, streaming, out)
        case Role.TOOL_RESULT:
            _tool_result(message, expanded, out)
        case Role.BASH_EXECUTION:
            _bash(message, expanded, out)
        case Role.COMPACTION_SUMMARY | Role.BRANCH_SUMMARY:
            _summary_card(message, kind, expanded, out)
        case Role.SYSTEM:
            _system_card(message, expanded, out)
        case Role.CUSTOM:
            out.header(
                as_text(message.get("customType")) or "custom message",
                theme.custom.accent,
                escape(_time(message)),
            )
            out.markdown(joined_text(message))
            _images(message, out)
        case Role.HOOK_MESSAGE | Role.UNKNOWN:
            out.header("Unrecognised message", theme.unknown.accent)
            out.code(pretty_json(message), "json")
        case _ as unreachable:
            assert_never(unreachable)
    return out
