"""What the Sessions panel shows: Arbor's and pi's sessions grouped by working folder. No Qt.

The panel (DESIGN.md §7, issue 11) lists every session a person has, wherever it was written: Arbor's
own root (``$ARBOR_HOME/sessions``, the platform data dir, or the ``sessionsRoot`` setting) and pi's
(``$PI_CODING_AGENT_DIR/sessions`` or ``~/.pi/agent/sessions``). Both use pi's layout, so one
:class:`~desktop_app.session.catalog.SessionCatalog` per root does the reading and caching; this module
decides the rows: grouped by the header's working folder (the folder a person thinks in), each group
and each row newest first, titled by the session's name or else its first message.

Listing reads files, so :meth:`SessionSources.list` is meant to run off the UI thread; everything
else here is cheap and pure.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePath

from desktop_app.session import SessionView
from desktop_app.session.catalog import SessionCatalog, SessionInfo
from desktop_app.session.entries import message_text
from desktop_app.session.kinds import Role, message_of, role_of
from desktop_app.session.paths import arbor_sessions_root, pi_sessions_root
from desktop_app.transcripts import FOREIGN_NAME, claude_projects_root, transcript_info_from_text

__all__ = [
    "APP_NAME",
    "CLAUDE_CODE",
    "TITLE_CHARS",
    "Found",
    "SessionGroup",
    "SessionRow",
    "SessionSources",
    "build_groups",
    "folder_labels",
    "fork_notice",
    "relative_time",
    "session_title",
    "window_title",
]

APP_NAME = "Arbor"
CLAUDE_CODE = FOREIGN_NAME
"""The source (and tag) of Claude Code's transcripts: opened read-only, continued by an import."""
TITLE_CHARS = 80
"""A title longer than this is cut with an ellipsis (a first message can be a whole page)."""

Found = tuple[str, SessionInfo]
"""``(source, info)``: which root a session came from (``"Arbor"``, ``"pi"`` or ``"Claude Code"``) and its record."""


@dataclass(frozen=True, slots=True)
class SessionRow:
    """One session as the panel shows it."""

    path: str
    title: str
    detail: str
    """``"12 messages · 5 min ago"``."""
    tooltip: str
    source: str
    modified: int
    message_count: int
    current: bool
    named: bool
    """The title is a name given by rename (not the first message)."""


@dataclass(frozen=True, slots=True)
class SessionGroup:
    """The sessions of one working folder, newest first."""

    folder: str
    label: str
    """The folder's last part (``trips``), or ``(no folder)``; the full path is in :attr:`folder`.
    Folders that share their last part say which is which: ``pi-mono — bob/code``."""
    rows: tuple[SessionRow, ...]


def _one_line(text: str, limit: int = TITLE_CHARS) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def relative_time(modified_ms: int, now_ms: int) -> str:
    """``just now``, ``5 min ago``, ``3 h ago``, ``yesterday``, ``4 days ago``, else the date."""
    seconds = max(0, (now_ms - modified_ms) // 1000)
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{seconds // 60} min ago"
    if seconds < 86_400:
        return f"{seconds // 3600} h ago"
    days = seconds // 86_400
    if days == 1:
        return "yesterday"
    if days < 7:
        return f"{days} days ago"
    return datetime.fromtimestamp(modified_ms / 1000).strftime("%Y-%m-%d")


def _row(source: str, info: SessionInfo, current: str | None, now_ms: int) -> SessionRow:
    count = info.message_count
    detail = f"{count} message{'' if count == 1 else 's'} · {relative_time(info.modified, now_ms)}"
    when = datetime.fromtimestamp(info.modified / 1000).strftime("%Y-%m-%d %H:%M")
    tooltip = "\n".join(
        part
        for part in (
            _one_line(info.first_message, 300) if info.name else "",
            f"{source} session · last change {when}",
            str(info.path),
        )
        if part
    )
    path = str(info.path)
    return SessionRow(
        path=path,
        title=_one_line(info.title),
        detail=detail,
        tooltip=tooltip,
        source=source,
        modified=info.modified,
        message_count=count,
        current=current is not None and _same_file(path, current),
        named=info.name is not None,
    )


def _same_file(a: str, b: str) -> bool:
    try:
        return a == b or Path(a).resolve() == Path(b).resolve()
    except OSError:
        return False


def build_groups(found: Iterable[Found], *, current: str | None = None, now_ms: int | None = None) -> tuple[SessionGroup, ...]:
    """Rows grouped by working folder; groups ordered by their newest session, rows newest first.

    A file listed under two roots (``sessionsRoot`` pointed at pi's folder) appears once.
    """
    now = int(time.time() * 1000) if now_ms is None else now_ms
    by_folder: dict[str, list[SessionRow]] = {}
    seen: set[str] = set()
    for source, info in found:
        key = str(info.path)
        if key in seen:
            continue
        seen.add(key)
        by_folder.setdefault(info.cwd, []).append(_row(source, info, current, now))
    groups = []
    labels = folder_labels(by_folder)
    for folder, rows in by_folder.items():
        rows.sort(key=lambda r: r.path)
        rows.sort(key=lambda r: r.modified, reverse=True)
        groups.append(SessionGroup(folder, labels[folder], tuple(rows)))
    groups.sort(key=lambda g: g.folder)
    groups.sort(key=lambda g: g.rows[0].modified, reverse=True)
    return tuple(groups)


def folder_labels(folders: Iterable[str]) -> dict[str, str]:
    """Each working folder's label: its last part, and where two folders share it (``pi-mono`` in
    Bob's and Kim's ``code``), the fewest parent folders that tell it apart (``pi-mono — bob/code``)."""
    folders = list(folders)
    parts = {f: PurePath(f).parts if f else () for f in folders}
    by_name: dict[str, list[str]] = {}
    for folder in folders:
        name = (parts[folder][-1] if parts[folder] else folder) if folder else "(no folder)"
        by_name.setdefault(name, []).append(folder)
    labels: dict[str, str] = {}
    for name, same in by_name.items():
        if len(same) == 1:
            labels[same[0]] = name
            continue
        for folder in same:
            parents = parts[folder][:-1]
            for depth in range(1, len(parents) + 1):
                suffix = parents[-depth:]
                if all(other == folder or parts[other][:-1][-depth:] != suffix for other in same):
                    break
            tail = "/".join(p for p in parents[-depth:] if p not in ("/", "\\")) if parents else ""
            labels[folder] = f"{name} — {tail}" if tail else name
    return labels


class SessionSources:
    """The roots the panel lists: Arbor's (or the ``sessionsRoot`` setting) and pi's, each cached.

    One instance lives as long as the window, so the catalogs' caches make every listing after the
    first cost a ``stat`` per file. Safe to call from a worker thread (the catalogs lock).
    """

    def __init__(
        self, arbor_root: str | Path | None = None, pi_root: str | Path | None = None,
        claude_root: str | Path | None = None,
    ) -> None:
        arbor = Path(arbor_root) if arbor_root else arbor_sessions_root()
        pi = Path(pi_root) if pi_root else pi_sessions_root()
        self.catalogs: list[tuple[str, SessionCatalog]] = [("Arbor", SessionCatalog(arbor))]
        if _resolved(pi) != _resolved(arbor):
            self.catalogs.append(("pi", SessionCatalog(pi)))
        # Claude Code's transcripts (DESIGN.md §14): same one-folder-per-project layout, own records;
        # kept apart from :attr:`catalogs` (the roots of pi session files, where new sessions may go)
        claude = Path(claude_root) if claude_root else claude_projects_root()
        self.transcripts = SessionCatalog(claude, transcript_info_from_text)

    @property
    def arbor_root(self) -> Path:
        return self.catalogs[0][1].root

    def list(self, query: str = "") -> list[Found]:
        """Every session of every root whose text holds all words of ``query`` (all when empty)."""
        found: list[Found] = []
        for source, catalog in [*self.catalogs, (CLAUDE_CODE, self.transcripts)]:
            found.extend((source, info) for info in catalog.search(query, everything=True))
        return found


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:
        return path


def fork_notice(kind: str, cwd: str, where: str, *, written: bool = True) -> str:
    """The status line after a fork or a clone (issue 22 item 4): what was made, where it is listed,
    where it opened. ``kind``: ``"fork"`` or ``"clone"``; ``where``: ``"here"`` (this window),
    ``"window"`` (a new window) or ``"not-opened"`` (a new window could not be started).
    ``written``: false for a fork of the first message, an empty session whose file is written
    (and listed) with its first entry."""
    made = "Forked" if kind == "fork" else "Cloned"
    folder = folder_labels([cwd])[cwd] if cwd else "(no folder)"
    if not written:
        return f"{made} into a new, empty session under “{folder}”, open here: it is listed once it has a message."
    opened = {
        "here": ", open here",
        "window": ", opened in a new window",
        "not-opened": "; a new window could not be started",
    }[where]
    return f"{made} into a new session under “{folder}”{opened}."


def session_title(view: SessionView) -> str:
    """The session's name, else its first user message (one line), else ``New session``."""
    name = view.get_session_name()
    if name:
        return _one_line(name)
    for entry in view.get_entries():
        message = message_of(entry)
        if message is not None and role_of(message) is Role.USER:
            text = message_text(message.get("content"), " ").strip()
            if text:
                return _one_line(text)
    return "New session"


def window_title(view: SessionView) -> str:
    """``"<name or first message> — Arbor"`` (issue 11 item 3)."""
    return f"{session_title(view)} — {APP_NAME}"
