"""Export a session: one self-contained web page and Markdown of the active path (DESIGN.md §14).

Qt-free, so ``arbor export`` runs without a display and the window runs it off its UI thread. The
session is read from a snapshot of its file (never written, locked or followed), a Claude Code
transcript converted as the window shows it; only its content goes into the outputs.
"""

from __future__ import annotations

import errno
import os
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from desktop_app.session.manager import SessionManager
from desktop_app.session.store import SessionFileError
from desktop_app.session.view import SessionView
from desktop_app.transcripts import TranscriptError, is_claude_code_transcript, open_transcript

from .markdown_doc import path_markdown
from .page import PageFacts, page_html, session_title

__all__ = ["ExportReport", "export_file", "export_view", "markdown_of", "page_html"]


@dataclass(frozen=True)
class ExportReport:
    """What an export wrote."""

    html_path: str | None
    html_bytes: int
    markdown_path: str | None
    markdown_bytes: int
    facts: PageFacts | None
    seconds: float


def markdown_of(view: SessionView, leaf_id: str | None = None) -> str:
    """The active path (to ``leaf_id``, default the leaf) as Markdown."""
    leaf = leaf_id if leaf_id is not None and leaf_id in view.index.by_id else view.leaf_id
    path = view.get_branch(leaf) if leaf is not None else []
    source = os.path.basename(view.session_file or "") or "an unsaved session"
    preface = f"Exported by Arbor from {source} (session {view.session_id}): the active path, {len(path):,} entries."
    return path_markdown(path, session_title(view), preface, dict(view.index.labels))


def _read(session_path: str) -> SessionView:
    """The session as the window shows it: a pi file from a snapshot, a Claude Code transcript
    converted as on open (read only; read as a pi file it would be an empty session)."""
    if os.path.isfile(session_path) and is_claude_code_transcript(session_path):
        try:
            return open_transcript(session_path)
        except TranscriptError as exc:
            raise SessionFileError(str(exc)) from exc
    return SessionManager.open_snapshot(session_path)


def _same_file(a: str, b: str) -> bool:
    """``a`` and ``b`` are one existing file (a link or a hard link included)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _write(path: str, text: str) -> int:
    """Write ``text`` to ``path`` whole or not at all (a temporary file beside it, then a rename)."""
    data = text.encode("utf-8")
    target = Path(path)
    tmp = target.with_name(f".{target.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")
    # os.open with 0o666, not mkstemp: the file gets the user's usual permissions (umask), not 0600
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return len(data)


def export_view(
    view: SessionView,
    html_path: str | None = None,
    markdown_path: str | None = None,
    *,
    leaf_id: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> ExportReport:
    """Write the page and/or the Markdown of ``view`` (raises ``OSError`` when a file cannot be written)."""
    start = time.perf_counter()
    html_bytes = markdown_bytes = 0
    facts = None
    if html_path is not None:
        page, facts = page_html(view, leaf_id, progress=progress)
        html_bytes = _write(html_path, page)
    if markdown_path is not None:
        if progress is not None:
            progress("Markdown")
        markdown_bytes = _write(markdown_path, markdown_of(view, leaf_id))
    return ExportReport(html_path, html_bytes, markdown_path, markdown_bytes, facts, time.perf_counter() - start)


def export_file(
    session_path: str,
    html_path: str | None = None,
    markdown_path: str | None = None,
    *,
    leaf_id: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> ExportReport:
    """:func:`export_view` of the session file ``session_path``, read from a snapshot.

    Raises ``OSError`` (nothing written) when an output is the session file itself (by its name, a
    link or a hard link: the page would replace the session), or the page and the Markdown are one file."""
    outputs = [out for out in (html_path, markdown_path) if out is not None]
    for out in outputs:
        if _same_file(out, session_path):
            raise OSError(errno.EINVAL, "the output is the session file itself; choose another name", out)
    if len(outputs) == 2 and (_same_file(outputs[0], outputs[1]) or os.path.abspath(outputs[0]) == os.path.abspath(outputs[1])):
        raise OSError(errno.EINVAL, "the page and the Markdown would be the same file twice; give each its own", outputs[1])
    if progress is not None:
        progress("reading the session")
    view = _read(session_path)
    return export_view(view, html_path, markdown_path, leaf_id=leaf_id, progress=progress)
