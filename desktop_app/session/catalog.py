"""Listing sessions under a root in pi's directory layout, and searching them (pi-spec §1.3, §3.9, §6.5).

The Sessions panel (DESIGN.md §7) shows Arbor's sessions and pi's, grouped by project folder. pi builds
each listing record (``SessionInfo``) by reading the *whole* file every time it lists; with a thousand
sessions that is seconds of work on every refresh. The catalog builds the same records, but keeps them
in a cache keyed by path and validated by ``(size, mtime_ns, inode)``: the first listing reads every
file, later listings only ``stat`` the directory contents and re-read what changed. Session files are
append-only, so any change shows up as a new size or mtime; an atomic rewrite (Arbor's migration
backup + rename) shows up as a new inode.

Field rules follow pi 0.73.1's ``buildSessionInfo``, checked against the real package. Where pi's code
would throw on odd input and silently drop the whole file from the listing, Arbor keeps the file and
ignores only the odd part (a ``null`` line, a message that is not an object, a non-string name); those
places are marked "pi:" below. Files are never written: v1/v2 files are migrated in memory only.
"""

from __future__ import annotations

import math
import os
import stat as stat_mod
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .entries import is_valid_header, message_text, parse_date_ms, parse_session_text
from .jsjson import JSONParseError, js_parse, js_trim
from .migrate import migrate_objects
from .paths import arbor_sessions_root, default_session_dir, pi_sessions_root
from .store import SessionFileError, SessionStore

__all__ = [
    "HEADER_PROBE_BYTES",
    "NO_MESSAGES",
    "CatalogStats",
    "InfoReader",
    "Progress",
    "SessionCatalog",
    "SessionInfo",
    "filter_sessions",
    "is_resumable_session_file",
    "read_session_info",
    "session_info_from_text",
]

NO_MESSAGES = "(no messages)"
"""pi's ``firstMessage`` when no user message has text."""

HEADER_PROBE_BYTES = 512
"""pi's ``--continue`` looks only at this many leading bytes for the header (the 512-byte quirk)."""

SESSION_SUFFIX = ".jsonl"

_MAX_DATE_MS = 8_640_000_000_000_000  # JS Date range (TimeClip): beyond it a Date is invalid

InfoReader = Callable[[Path, str, int], "SessionInfo | None"]
"""``reader(path, text, mtime_ms)``: a file's listing record, ``None`` when it is not a session."""

Progress = Callable[[int, int], None]
"""``progress(done, total)``: called after each file a listing has to read (not for cache hits)."""


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """One row of a session listing: pi's ``SessionInfo`` (pi-spec §3.9) with times in epoch ms.

    ``created`` is ``None`` where pi's ``new Date(header.timestamp)`` is an Invalid Date; ``modified``
    always has a value because pi falls back to the file's mtime.
    """

    path: Path
    id: str
    cwd: str
    name: str | None
    parent_session_path: str | None
    created: int | None
    modified: int
    message_count: int
    first_message: str
    all_messages_text: str
    other_text: str = ""
    """Text pi's record leaves out but a search should find (Arbor only): tool results, shell
    output, custom messages, compaction and branch summaries, tool-call arguments."""

    @property
    def title(self) -> str:
        """What a picker row shows: the name, or the first message when unnamed (pi-spec §6.5)."""
        return self.name if self.name is not None else self.first_message


@dataclass
class CatalogStats:
    """Counters that make the cache observable (tests, benchmarks, a debug overlay)."""

    listings: int = 0
    files_read: int = 0
    cache_hits: int = 0
    files_dropped: int = 0  # cached files that disappeared from disk


# ============================================================================== building one record


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _date_ms(value: Any) -> int | None:
    """``new Date(value).getTime()`` for the values a header or message can hold; ``None`` = invalid.

    pi: ``new Date(null)`` is 1970 and ``new Date(true)`` is 1 ms; Arbor calls those invalid, which is
    what they mean.
    """
    if isinstance(value, str):
        return parse_date_ms(value)
    if _is_number(value) and math.isfinite(value) and abs(value) <= _MAX_DATE_MS:
        return int(value)  # TimeClip truncates toward zero, as int() does
    return None


def session_info_from_text(path: Path, text: str, mtime_ms: int) -> SessionInfo | None:
    """Build the listing record from a file's text; ``None`` when it is not a session file.

    ``mtime_ms`` is only used when neither a message nor the header gives a valid time. The whole
    file is parsed (as pi does) because ``message_count`` covers every branch and the name is the
    *last* ``session_info`` entry, wherever it is.
    """
    objects = parse_session_text(text).objects
    if not objects or not is_valid_header(objects[0]):
        # pi only checks ``type == "session"`` here, so it lists a header without a string id with
        # ``id: undefined``; such a file cannot be opened by pi or Arbor, so Arbor does not list it.
        return None
    migrate_objects(objects)  # in memory only; v2→v3 renames hookMessage, which is never counted
    header: dict[str, Any] = objects[0]

    name: str | None = None
    message_count = 0
    first_message = ""
    texts: list[str] = []
    others: list[str] = []
    last_activity = 0  # pi: Math.max(last ?? 0, t), used only when it ends up > 0
    for entry in objects[1:]:
        if not isinstance(entry, dict):
            continue  # pi: a `null` line throws and drops the file; numbers/strings are ignored
        entry_type = entry.get("type")
        if entry_type == "session_info":
            raw = entry.get("name")
            # The last entry wins even when empty: an empty name clears it (pi 0.73.1). pi throws on
            # a non-string name (dropping the file); Arbor treats it as a clear, like SessionIndex.
            name = (js_trim(raw) if isinstance(raw, str) else "") or None
            continue
        if entry_type != "message":
            others.extend(_entry_search_text(entry))
            continue
        message_count += 1
        message = entry.get("message")
        if not isinstance(message, dict):
            continue  # pi: throws on a missing message and drops the file
        role = message.get("role")
        if role not in ("user", "assistant") or "content" not in message:
            others.extend(_message_search_text(message))
            continue
        if role == "assistant":
            others.extend(_tool_call_text(message.get("content")))
        stamp = message.get("timestamp")
        activity = _date_ms(stamp) if _is_number(stamp) else None
        if activity is None:
            # Non-numeric (or, unlike pi, out-of-range) message timestamp: the entry's ISO time.
            activity = parse_date_ms(entry.get("timestamp"))
        if activity is not None and activity > last_activity:
            last_activity = activity
        content_text = message_text(message["content"], " ")
        if content_text:
            texts.append(content_text)
            if not first_message and role == "user":
                first_message = content_text

    if last_activity > 0:
        modified = last_activity
    else:
        header_stamp = header.get("timestamp")
        header_ms = parse_date_ms(header_stamp) if isinstance(header_stamp, str) else None
        modified = header_ms if header_ms is not None else mtime_ms

    cwd = header.get("cwd")
    parent = header.get("parentSession")
    return SessionInfo(
        path=path,
        id=header["id"],
        cwd=cwd if isinstance(cwd, str) else "",
        name=name,
        parent_session_path=parent if isinstance(parent, str) else None,
        created=_date_ms(header.get("timestamp")),
        modified=modified,
        message_count=message_count,
        first_message=first_message or NO_MESSAGES,
        all_messages_text=" ".join(texts),
        other_text=" ".join(t for t in others if t),
    )


def _block_text(content: Any) -> str:
    """Every text block of a content list (or the string itself), whatever the block's neighbours."""
    return message_text(content, " ")


def _message_search_text(message: dict[str, Any]) -> list[str]:
    """The searchable text of a non-user/assistant message: tool results, ``bashExecution``, custom."""
    found = [_block_text(message.get("content"))]
    for key in ("command", "output", "summary"):
        value = message.get(key)
        if isinstance(value, str):
            found.append(value)
    return found


def _tool_call_text(content: Any) -> list[str]:
    """The arguments of an assistant's tool calls (a path or a command a user remembers)."""
    if not isinstance(content, list):
        return []
    found: list[str] = []
    for block in content:
        if isinstance(block, dict) and block.get("type") == "toolCall":
            arguments = block.get("arguments")
            if isinstance(arguments, dict):
                found.extend(str(v) for v in arguments.values() if isinstance(v, (str, int, float)))
    return found


def _entry_search_text(entry: dict[str, Any]) -> list[str]:
    """The searchable text of a non-message entry: summaries, custom messages, labels."""
    found: list[str] = []
    for key in ("summary", "label"):
        value = entry.get(key)
        if isinstance(value, str):
            found.append(value)
    if entry.get("type") == "custom_message":
        found.append(_block_text(entry.get("content")))
    return found


def _read_text(path: Path) -> str:
    """The file's text as Node's ``readFile(path, "utf8")`` gives it (invalid UTF-8 → U+FFFD)."""
    return SessionStore(path).read().text


def read_session_info(path: str | Path) -> SessionInfo | None:
    """The listing record of one file; ``None`` if it cannot be read or is not a session file."""
    file_path = Path(path)
    try:
        st = os.stat(file_path)
        if not stat_mod.S_ISREG(st.st_mode):
            return None  # a directory named *.jsonl, or a FIFO (opening one would block)
        text = _read_text(file_path)
    except (OSError, SessionFileError):
        return None
    return session_info_from_text(file_path, text, st.st_mtime_ns // 1_000_000)


def is_resumable_session_file(path: str | Path) -> bool:
    """pi's ``--continue`` validity test: the first 512 bytes, cut at the first ``\\n``, parse as JSON
    with ``type == "session"`` and a string ``id``.

    Kept byte-for-byte with its quirks so that "continue the most recent session" picks the same file
    as pi: a header line longer than 512 bytes never parses (the file is skipped), and a UTF-8 BOM
    makes ``JSON.parse`` fail too, although the full reader (which trims) accepts such a file.
    """
    try:
        with open(path, "rb") as fh:
            head = fh.read(HEADER_PROBE_BYTES)
    except OSError:
        return False
    first_line = head.decode("utf-8", errors="replace").split("\n", 1)[0]
    if not first_line:
        return False
    try:
        header = js_parse(first_line)
    except JSONParseError:
        return False
    return isinstance(header, dict) and header.get("type") == "session" and isinstance(header.get("id"), str)


# ============================================================================== search


def _search_terms(query: str) -> list[str]:
    return query.casefold().split()


def _haystack(info: SessionInfo, everything: bool = False) -> str:
    # "\n" between fields: terms contain no whitespace, so a term can never match across two fields.
    fields: tuple[str, ...] = (info.name or "", info.first_message, info.all_messages_text, info.cwd, info.id)
    if everything:
        fields += (info.other_text,)
    return "\n".join(fields).casefold()


def filter_sessions(sessions: Iterable[SessionInfo], query: str, *, everything: bool = False) -> list[SessionInfo]:
    """Sessions whose name, first message, text, cwd or id contain every whitespace-separated term
    (case-insensitive), in the given order. An empty query keeps everything.

    pi searches user and assistant text only; ``everything`` also searches :attr:`SessionInfo.other_text`
    (tool results, shell output, summaries, tool-call arguments), as Arbor's Sessions panel does."""
    terms = _search_terms(query)
    if not terms:
        return list(sessions)
    return [info for info in sessions if all(term in _haystack(info, everything) for term in terms)]


# ============================================================================== the catalog


@dataclass(slots=True)
class _Cached:
    """What a file looked like when it was read, and what it yielded (``None``: not a session)."""

    size: int
    mtime_ns: int
    inode: int
    info: SessionInfo | None
    folded: str | None = None  # search haystack, computed on the first search and kept with the info
    folded_all: str | None = None  # the same with other_text (searches with everything=True)


def _sort_newest_first(rows: list[_Cached]) -> list[_Cached]:
    # pi sorts by `modified` only (ties keep readdir order, which is arbitrary); the path tie-break
    # makes the order reproducible.
    rows.sort(key=lambda row: str(row.info.path) if row.info else "")
    rows.sort(key=lambda row: row.info.modified if row.info else 0, reverse=True)
    return rows


_Listing = list[_Cached]
_Names = list[str]
_Infos = list[SessionInfo]  # aliases: inside the class, `list` is the method
_FileStats = list[tuple[str, str, os.stat_result]]
_Plan = list[tuple[str, dict[str, _Cached], _FileStats]]


class SessionCatalog:
    """Session listings under one sessions root (``<root>/--<encoded cwd>--/*.jsonl``), cached.

    One instance per root, shared by whoever lists (the Sessions panel, ``--session`` id lookup).
    Every public method takes the catalog's lock, so a listing can run on a worker thread while the
    UI thread asks for another one; the second simply waits for the first and then hits its cache.
    """

    def __init__(self, root: str | Path, info_reader: InfoReader | None = None) -> None:
        self.root = Path(root)
        # How a file's text becomes its record: pi's sessions by default; another program's
        # transcripts (Claude Code's, in the same one-folder-per-project layout) bring their own.
        self.info_reader: InfoReader = info_reader if info_reader is not None else session_info_from_text
        self.stats = CatalogStats()
        self._lock = threading.Lock()
        # directory (as str) → {file name → cached record}; a listing of a directory replaces its
        # map wholesale, so files deleted since the last listing drop out without extra bookkeeping.
        self._dirs: dict[str, dict[str, _Cached]] = {}

    @classmethod
    def arbor(cls) -> SessionCatalog:
        """Arbor's own sessions (``$ARBOR_HOME/sessions`` or the platform data dir)."""
        return cls(arbor_sessions_root())

    @classmethod
    def pi(cls) -> SessionCatalog:
        """pi's sessions (``$PI_CODING_AGENT_DIR/sessions`` or ``~/.pi/agent/sessions``)."""
        return cls(pi_sessions_root())

    def __repr__(self) -> str:
        return f"SessionCatalog({str(self.root)!r})"

    # ------------------------------------------------------------------------------- listings

    def session_dir(self, cwd: str) -> Path:
        """The per-project directory for ``cwd`` under this root (not created: listing never writes)."""
        return default_session_dir(cwd, self.root)

    def list(
        self, cwd: str, session_dir: str | Path | None = None, *, progress: Progress | None = None
    ) -> _Infos:
        """Sessions of one directory: ``session_dir``, or the per-project dir of ``cwd``; newest first.

        Files that are not sessions are left out. A missing directory is an empty list.
        """
        directory = Path(session_dir) if session_dir is not None else self.session_dir(cwd)
        with self._lock:
            self.stats.listings += 1
            rows = self._refresh([str(directory)], progress)
            return [row.info for row in _sort_newest_first(rows) if row.info is not None]

    def list_all(self, *, progress: Progress | None = None) -> _Infos:
        """Sessions in every immediate subdirectory of the root, newest first.

        Files lying directly in the root are not listed, and symlinked subdirectories are not
        followed (pi's ``Dirent.isDirectory()``), so both programs show the same set.
        """
        with self._lock:
            self.stats.listings += 1
            rows = self._list_all_locked(progress)
            return [row.info for row in rows if row.info is not None]

    def search(self, query: str, *, everything: bool = False, progress: Progress | None = None) -> _Infos:
        """:meth:`list_all` filtered by :func:`filter_sessions` rules, newest first (``everything``:
        tool results and the other text pi does not search, too).

        The lower-cased text of each session is kept with its cache entry, so typing a query
        re-scans only changed files and never re-folds megabytes of unchanged text.
        """
        terms = _search_terms(query)
        with self._lock:
            self.stats.listings += 1
            rows = self._list_all_locked(progress)
            found: _Infos = []
            for row in rows:
                if row.info is None:
                    continue
                if terms:
                    folded = row.folded_all if everything else row.folded
                    if folded is None:
                        folded = _haystack(row.info, everything)
                        if everything:
                            row.folded_all = folded
                        else:
                            row.folded = folded
                    if not all(term in folded for term in terms):
                        continue
                found.append(row.info)
            return found

    def most_recent(self, cwd: str, session_dir: str | Path | None = None) -> Path | None:
        """The file pi's ``--continue`` would resume: newest *filesystem* mtime among the files that
        pass :func:`is_resumable_session_file`, in ``session_dir`` or the per-project dir of ``cwd``.

        Not ``SessionInfo.modified``, and no cache: 512 bytes per file is cheap, and this must see
        the disk as it is now. Equal mtimes (pi: readdir order) go to the greater file name, i.e.
        the later-created file under pi's naming.
        """
        directory = Path(session_dir) if session_dir is not None else self.session_dir(cwd)
        best: tuple[int, str] | None = None
        for name, path, st in _session_files(str(directory)):
            if is_resumable_session_file(path):
                key = (st.st_mtime_ns, name)
                if best is None or key > best:
                    best = key
        return directory / best[1] if best is not None else None

    def clear(self) -> None:
        """Forget everything; the next listing reads every file again."""
        with self._lock:
            self._dirs.clear()

    # ------------------------------------------------------------------------------- internals

    def _list_all_locked(self, progress: Progress | None) -> _Listing:
        root = str(self.root)
        directories: _Names = []
        try:
            with os.scandir(root) as it:
                for item in it:
                    try:
                        if item.is_dir(follow_symlinks=False):
                            directories.append(item.path)
                    except OSError:
                        continue
        except OSError:
            pass  # no root yet: nothing listed
        directories.sort()
        # Forget project directories that vanished from the root since the last listing.
        for stale in [d for d in self._dirs if os.path.dirname(d) == root and d not in directories]:
            self.stats.files_dropped += len(self._dirs.pop(stale))
        return _sort_newest_first(self._refresh(directories, progress))

    def _refresh(self, directories: _Names, progress: Progress | None) -> _Listing:
        """Bring the cache of ``directories`` up to date with the disk; return their records."""
        plan: _Plan = []
        to_read = 0
        for directory in directories:
            old = self._dirs.get(directory, {})
            stale: _FileStats = []
            fresh: dict[str, _Cached] = {}
            on_disk = _session_files(directory)
            for name, path, st in on_disk:
                cached = old.get(name)
                if (
                    cached is not None
                    and cached.size == st.st_size
                    and cached.mtime_ns == st.st_mtime_ns
                    and cached.inode == st.st_ino
                ):
                    fresh[name] = cached
                else:
                    stale.append((name, path, st))
            self.stats.cache_hits += len(fresh)
            self.stats.files_dropped += len(old.keys() - {name for name, _, _ in on_disk})
            to_read += len(stale)
            plan.append((directory, fresh, stale))

        done = 0
        rows: _Listing = []
        for directory, fresh, stale in plan:
            for name, path, st in stale:
                # The stat taken *before* reading is what gets cached: if the file grows while it is
                # read, the next listing sees a new size and reads it again, never the reverse.
                info: SessionInfo | None
                try:
                    text = _read_text(Path(path))
                except (OSError, SessionFileError):
                    info = None
                else:
                    info = self.info_reader(Path(path), text, st.st_mtime_ns // 1_000_000)
                self.stats.files_read += 1
                fresh[name] = _Cached(st.st_size, st.st_mtime_ns, st.st_ino, info)
                done += 1
                if progress is not None:
                    progress(done, to_read)
            if fresh:
                self._dirs[directory] = fresh
            else:
                self._dirs.pop(directory, None)
            rows.extend(fresh.values())
        return rows


def _session_files(directory: str) -> _FileStats:
    """``(name, path, stat)`` of the regular ``*.jsonl`` files in ``directory`` (symlinks followed,
    as pi's ``readFile`` follows them); unreadable directories and vanished files are skipped."""
    found: _FileStats = []
    try:
        with os.scandir(directory) as it:
            for item in it:
                if not item.name.endswith(SESSION_SUFFIX):
                    continue
                try:
                    st = item.stat()
                except OSError:
                    continue
                if stat_mod.S_ISREG(st.st_mode):
                    found.append((item.name, item.path, st))
    except OSError:
        pass
    return found
