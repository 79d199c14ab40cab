"""The exported page: one self-contained HTML file (DESIGN.md §14).

Inline CSS, the tree as inline SVG (:mod:`.tree_svg`), the chat of the active path, the compaction
audits, the branch summaries and the labels (:mod:`.sections`); no script and no external resource:
the page's Content-Security-Policy forbids loading anything at all, so it reads the same offline,
in any browser, years later. Only the session's own content is written: no setting, key or
environment variable is read here.
"""

from __future__ import annotations

import datetime as _dt
import html
import os
from collections.abc import Callable
from dataclasses import dataclass

from desktop_app.present.chat_feed import session_profile
from desktop_app.present.chat_messages import first_line, joined_text
from desktop_app.present.graph_model import build_view_graph
from desktop_app.session.kinds import EntryKind, kind_of
from desktop_app.session.view import SessionView

from .sections import branch_summaries_html, chat_html, compactions_html, is_user_message, labels_html
from .tree_svg import tree_svg

__all__ = ["CHAT_LIMIT", "PageFacts", "page_html", "session_title"]

#: Most entries of the active path the page's chat holds (the newest); older ones are counted, not shown.
CHAT_LIMIT = 1500

#: Nothing may be loaded: no network, no file, no frame; inline styles only; no script at all.
_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

_CSS = """
:root { color-scheme: light; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif;
  color: #1f2328; background: #f4f5f7; }
header { padding: 14px 20px 8px; background: #fff; border-bottom: 1px solid #d8dee4; }
header h1 { font-size: 20px; margin: 0 0 4px; }
header p { margin: 2px 0; color: #656d76; }
nav a { margin-right: 14px; }
.cols { display: grid; grid-template-columns: minmax(320px, 42%) 1fr; gap: 0; align-items: start; }
.tree-pane { position: sticky; top: 0; max-height: 100vh; overflow: auto; background: #fff;
  border-right: 1px solid #d8dee4; }
.tree-pane .legend { padding: 8px 12px; font-size: 12px; color: #656d76; }
.tree a { cursor: pointer; }
main { padding: 10px 20px 40px; min-width: 0; }
h2 { font-size: 17px; margin: 22px 0 8px; }
.msg { border: 1px solid; border-left-width: 4px; border-radius: 6px; padding: 8px 12px; margin: 8px 0;
  overflow-wrap: anywhere; }
.msg p { margin: 4px 0; }
.msg pre, .summary pre { white-space: pre-wrap; overflow-wrap: anywhere; }
.msg table, .summary table { border-collapse: collapse; max-width: 100%; }
.msg th, .msg td, .summary th, .summary td { border: 1px solid #d0d7de; padding: 2px 6px; }
code { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12.5px; background: #eff1f3;
  padding: 0 3px; border-radius: 3px; }
pre code { background: none; padding: 0; }
.flag { color: #e67700; font-weight: 700; }
.note { color: #656d76; font-style: italic; margin: 4px 0; }
details > summary { list-style-position: inside; }
.audit { background: #fff5d6; border: 1px solid #d4a72c; border-radius: 6px; padding: 8px 14px; margin: 10px 0; }
.audit.branch { background: #e6fcf5; border-color: #0c8599; }
.audit h3 { font-size: 15px; margin: 4px 0 6px; }
.audit dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 0 0 8px; }
.audit dt { font-weight: 700; }
.audit dd { margin: 0; }
.audit ul { margin: 0; padding-left: 18px; }
.summary { background: #fff; border-radius: 4px; padding: 4px 12px; }
table.labels { border-collapse: collapse; background: #fff; }
table.labels td, table.labels th { border: 1px solid #d8dee4; padding: 3px 8px; text-align: left; }
"""

_LEGEND = (
    "Tree: the active path is drawn dark, its leaf ringed in pink; "
    '<b style="color:#e8590c">orange</b>: compactions, <b style="color:#0c8599">teal</b>: branch summaries '
    "(dashed lines lead to the branch they summarize), ⚑: labels, ⋯ N: a run of N entries folded into one box. "
    "Click a node to read it."
)


@dataclass(frozen=True)
class PageFacts:
    """What went into a page (for the command's last line and the benchmarks)."""

    entries: int
    path_entries: int
    chat_entries: int
    tree_nodes: int
    compactions: int
    branch_summaries: int
    labels: int


def session_title(view: SessionView) -> str:
    """The session's name, else its first user message's first line, else its file's name."""
    name = view.get_session_name()
    if name:
        return name
    for entry in view.get_entries():
        if is_user_message(entry):
            line = first_line(joined_text(entry["message"]), 90)
            if line:
                return line
    return os.path.basename(view.session_file or "") or "Session"


def _header(view: SessionView, facts: PageFacts, title: str) -> str:
    e = html.escape
    header = view.get_header()
    made = header.get("timestamp")
    cwd = header.get("cwd")
    source = os.path.basename(view.session_file or "") or "an unsaved session"
    now = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (
        f"<header><h1>{e(title)}</h1>"
        f"<p>{e(source)} · session {e(view.session_id)}"
        + (f" · started {e(str(made))}" if isinstance(made, str) else "")
        + (f" · folder <code>{e(cwd)}</code>" if isinstance(cwd, str) and cwd else "")
        + "</p>"
        f"<p>{facts.entries:,} entries · {facts.path_entries:,} on the active path · {facts.compactions} compactions · "
        f"{facts.branch_summaries} branch summaries · {facts.labels} labels · exported by Arbor {e(now)}</p>"
        '<nav><a href="#chat">Chat</a><a href="#compactions">Compactions</a>'
        '<a href="#branch-summaries">Branch summaries</a><a href="#labels">Labels</a></nav></header>'
    )


def page_html(
    view: SessionView, leaf_id: str | None = None, *, progress: Callable[[str], None] | None = None
) -> tuple[str, PageFacts]:
    """The page of ``view`` seen from ``leaf_id`` (default: its leaf), and what went into it.

    ``progress`` hears each step's name as it starts (the command line says them on slow exports)."""
    say = progress or (lambda _step: None)
    index = view.index
    leaf = leaf_id if leaf_id is not None and leaf_id in index.by_id else view.leaf_id
    path = view.get_branch(leaf) if leaf is not None else []
    entries = list(index.by_id.values())
    compactions = [e["id"] for e in entries if kind_of(e) is EntryKind.COMPACTION]
    summaries = [e["id"] for e in entries if kind_of(e) is EntryKind.BRANCH_SUMMARY]
    labels = dict(index.labels)
    say(f"chat of the active path ({len(path):,} entries)")
    chat, shown = chat_html(path, labels, CHAT_LIMIT)
    on_path = {e["id"] for e in path if isinstance(e.get("id"), str)}
    linked = shown | set(compactions) | set(summaries)
    say(f"compaction audits ({len(compactions)})")
    audits = compactions_html(index, compactions, on_path, session_profile(view))
    branches = branch_summaries_html(index, summaries)
    say("tree")
    graph = build_view_graph(index, leaf)
    title = session_title(view)
    picture = tree_svg(graph, linked, view.get_session_name())
    facts = PageFacts(
        entries=len(entries),
        path_entries=len(path),
        chat_entries=len(shown),
        tree_nodes=picture.nodes,
        compactions=len(compactions),
        branch_summaries=len(summaries),
        labels=len(labels),
    )
    e = html.escape
    page = (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        '<meta http-equiv="x-dns-prefetch-control" content="off">'
        '<meta name="referrer" content="no-referrer">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{e(title)} · Arbor</title><style>{_CSS}</style></head><body>"
        + _header(view, facts, title)
        + '<div class="cols"><aside class="tree-pane" id="tree">'
        f'<p class="legend">{_LEGEND} {picture.nodes:,} nodes.</p>{picture.svg}</aside>'
        f'<main><h2 id="chat">Chat of the active path</h2>{chat or "<p>No messages.</p>"}'
        f'<h2 id="compactions">Compactions ({len(compactions)})</h2>{audits or "<p>No compactions.</p>"}'
        f'<h2 id="branch-summaries">Branch summaries ({len(summaries)})</h2>{branches or "<p>No branch summaries.</p>"}'
        f'<h2 id="labels">Labels ({len(labels)})</h2>{labels_html(index, linked)}'
        "</main></div></body></html>\n"
    )
    return page, facts
