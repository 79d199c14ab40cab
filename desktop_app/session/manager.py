"""``SessionManager``: the one API the rest of Arbor uses for a session (DESIGN.md §4, pi-spec §3).

Behaviour is pi's, names are Python's. What Arbor does differently is deliberate and listed in
DESIGN.md §2: a file is written from its first entry and never gets a line twice; a file without a
valid header is opened read-only instead of being overwritten; migrations keep a backup; appends
are locked and fsynced; other writers' appends are followed; cycles never hang.
"""

from __future__ import annotations

import enum
import gc
import logging
import mmap
import os
import re
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from stat import S_ISREG
from typing import Any, Final

from .context import SessionContext, build_session_context, extend_context
from .entries import (
    Entry,
    Message,
    in_1_6_key_order,
    is_header,
    is_valid_header,
    iso_now,
    js_date_ms,
    make_branch_summary_entry,
    make_compaction_entry,
    make_context_edit_entry,
    make_custom_entry,
    make_custom_message_entry,
    make_header,
    make_label_entry,
    make_message_entry,
    make_model_change_entry,
    make_session_info_entry,
    make_thinking_level_entry,
    make_usage_entry,
    new_entry_id,
    parse_session_lines,
    parse_session_text,
    serialize_line,
    uuid7,
)
from .events import (
    EntryAppended,
    ExternalAppend,
    LeafMoved,
    Reloaded,
    SessionEvent,
    SessionFailed,
    Subscriber,
)
from .jsjson import js_trim
from .migrate import migrate_objects, needs_migration
from .paths import default_session_dir, session_file_name
from .profile import PI_1_6_0, PiProfile
from .skeleton import first_picture_lines, scan_skeleton
from .store import SessionFileError, SessionStore
from .system_prompt import current_system_message
from .tree import SessionIndex, TreeNode, key_of
from .workers import serial_worker

log = logging.getLogger(__name__)
_LINE_BREAKS = re.compile(r"[\r\n]+")
_EDITABLE = frozenset({"user", "assistant", "toolResult"})

__all__ = ["UNSET", "SessionManager", "SessionEvent", "SessionError", "SessionReadOnlyError", "SessionFileError"]


class _Unset(enum.Enum):
    """The type of :data:`UNSET`: "no value given", distinct from ``None`` (which means "no parent")."""

    UNSET = "UNSET"


UNSET: Final = _Unset.UNSET


class SessionError(Exception):
    """A session operation was refused (unknown entry, empty branch, ...); the message is pi's."""


class SessionReadOnlyError(SessionError):
    """The session was opened read-only (no valid header) and cannot be appended to."""


@dataclass
class OpenReport:
    """What opening a file found, for the UI and ``arbor inspect``."""

    malformed_lines: list[int] = field(default_factory=list)
    torn_last_line: bool = False
    """The file ended in an unterminated line that is not a whole entry: cut short by a crash, or
    another program is between two ``write`` calls. It is left unread, not counted in
    :attr:`malformed_lines` (unless it is all the file holds): following reads it once it is
    complete, and Arbor's next append terminates it first (then it is reported as malformed)."""
    migrated: bool = False
    backup_path: Path | None = None
    header_regenerated: bool = False
    error: str | None = None
    non_object_lines: list[int] = field(default_factory=list)
    foreign: str | None = None
    """The program that wrote the file when it is not a pi session but was converted to be shown
    (``"Claude Code"``): read-only, continued through an import (DESIGN.md §14)."""
    notes: list[str] = field(default_factory=list)
    """What converting a foreign file met that is worth saying (a cycle broken, a missing leaf)."""


class SessionManager:
    """A session: its header, its entries as a tree, the current leaf, and (optionally) its file."""

    def __init__(
        self,
        cwd: str,
        session_dir: Path | str | None,
        persist: bool,
        session_file: Path | str | None = None,
        fsync: bool = True,
        profile: PiProfile = PI_1_6_0,
    ) -> None:
        self._cwd = cwd
        self._profile = profile
        self.session_dir: Path | None = Path(session_dir) if session_dir else None
        self.persist = persist
        self.fsync = fsync
        self.read_only = False
        self.report = OpenReport()
        self._subscribers: list[Subscriber] = []
        self._header: Entry = {}
        self._index = SessionIndex()
        self._leaf_id: str | None = None
        self._header_written = False  # is the header on disk?
        self._written = 0  # how many of the index's entries are on disk (in order)
        self._store: SessionStore | None = None
        self._session_file: Path | None = Path(session_file) if session_file else None
        # Bumped on every change to the index (an entry added, the index replaced): with the leaf it is
        # the key of the context cache, so the cache can never outlive the tree it was built from.
        self._revision = 0
        self._context_cache: tuple[tuple[str | None, int], SessionContext] | None = None
        self._defer_sync = False  # inside deferred_sync(): appends leave the fsync to sync()
        # A deferred open (``open(defer=True)``): the whole file's parse, until finish_loading installs it.
        self._full_load: _FullLoad | None = None

    # ================================================================================ constructors

    @classmethod
    def create(
        cls, cwd: str, session_dir: Path | str | None = None, *, fsync: bool = True, profile: PiProfile = PI_1_6_0
    ) -> SessionManager:
        """A new session in ``session_dir`` (default: Arbor's per-project dir). Written on first append."""
        directory = Path(session_dir) if session_dir else default_session_dir(cwd)
        manager = cls(cwd, directory, persist=True, fsync=fsync, profile=profile)
        manager.new_session()
        return manager

    @classmethod
    def in_memory(cls, cwd: str | None = None, *, profile: PiProfile = PI_1_6_0) -> SessionManager:
        """A session that never touches the disk."""
        manager = cls(cwd if cwd is not None else os.getcwd(), None, persist=False, profile=profile)
        manager.new_session()
        return manager

    @classmethod
    def open(
        cls,
        path: str | Path,
        session_dir: Path | str | None = None,
        cwd_override: str | None = None,
        *,
        fsync: bool = True,
        profile: PiProfile = PI_1_6_0,
        defer: bool = False,
    ) -> SessionManager:
        """Open a session file (pi's ``SessionManager.open``); a missing file becomes a new session there.

        ``defer=True`` (the window's start, issue 28): a big file as pi writes it is opened from its
        skeleton (:mod:`.skeleton`), with only the lines its first picture reads parsed: the leaf's
        path up to where its context starts, the branches near the leaf, labels and name. The whole
        file is then parsed, exactly as without ``defer``, by :meth:`load_in_background` (or by the
        first call that needs all of it) and installed by :meth:`finish_loading`, which emits
        ``Reloaded``. Until then :attr:`loading` is true, :attr:`report` is empty, other writers'
        lines wait for that parse (it reads them), and anything that writes or needs the whole tree
        finishes the load first. A file the skeleton cannot vouch for is opened the ordinary way.
        """
        file_path = Path(os.path.abspath(os.fspath(path)))
        directory = Path(session_dir) if session_dir else file_path.parent
        manager = cls(
            cwd_override or os.getcwd(), directory, persist=True, session_file=file_path, fsync=fsync, profile=profile
        )
        if defer and manager._load_first_picture(file_path, cwd_override):
            manager._full_load = _FullLoad(
                lambda: cls.open(file_path, session_dir, cwd_override, fsync=fsync, profile=profile)
            )
            return manager
        manager._load(file_path, cwd_override)
        return manager

    @classmethod
    def open_snapshot(cls, path: str | Path, *, profile: PiProfile = PI_1_6_0) -> SessionManager:
        """The session in ``path`` as it is now, read from a copy: never writes, locks or follows.

        A v1/v2 file is migrated in the copy only. The snapshot is read-only and names ``path`` as its
        file (for display), so a screenshot or a preview shows the real file without touching it.
        """
        source = Path(os.path.abspath(os.fspath(path)))
        with tempfile.TemporaryDirectory(prefix="arbor-snapshot-") as tmp:
            copy = Path(tmp) / source.name
            shutil.copyfile(source, copy)
            manager = cls.open(copy, fsync=False, profile=profile)
        manager.read_only = True
        manager._session_file = source
        manager._store = None
        return manager

    @classmethod
    def from_entries(
        cls,
        header: Entry,
        entries: list[Entry],
        *,
        source: str | Path,
        report: OpenReport | None = None,
        profile: PiProfile = PI_1_6_0,
        full_load: Callable[[], SessionManager] | None = None,
    ) -> SessionManager:
        """A read-only session of entries made elsewhere (another program's transcript, converted).

        It names ``source`` as its file (for display) but never writes, locks or follows it: nothing
        can be appended, as to a file that is not a session. The leaf is the last entry, as on open.
        ``full_load``: ``entries`` are only the first picture's; that call makes the whole session,
        which :meth:`load_in_background` and :meth:`finish_loading` install as after ``open(defer=True)``.
        """
        cwd = header.get("cwd")
        manager = cls(cwd if isinstance(cwd, str) and cwd else os.getcwd(), None, persist=False, profile=profile)
        manager._header = header
        manager._replace_index(SessionIndex.build(entries))
        manager._leaf_id = manager._index.last_id
        manager._session_file = Path(os.path.abspath(os.fspath(source)))
        manager.read_only = True
        manager.report = report if report is not None else OpenReport()
        if full_load is not None:
            manager._full_load = _FullLoad(full_load)
        return manager

    @classmethod
    def fork_from(
        cls,
        source_path: str | Path,
        target_cwd: str,
        session_dir: Path | str | None = None,
        *,
        profile: PiProfile = PI_1_6_0,
    ) -> SessionManager:
        """Copy a whole session (every entry, migrated first) into a new file of ``target_cwd``."""
        source = Path(os.path.abspath(os.fspath(source_path)))
        try:
            text = SessionStore(source).read().text
        except FileNotFoundError as exc:
            raise SessionError(f"Cannot fork: {source} does not exist") from exc
        parsed = parse_session_text(text, trim_end=profile.trims_file_text)
        objects = [obj for obj in parsed.objects if isinstance(obj, dict)]
        if not objects or not is_valid_header(objects[0]):
            raise SessionError(f"Cannot fork: {source} is empty or not a session file")
        migrate_objects(objects)  # pi copies unmigrated v1/v2 entries and breaks the tree; Arbor doesn't
        directory = Path(session_dir) if session_dir else default_session_dir(target_cwd)
        timestamp = iso_now()
        header = make_header(uuid7(), target_cwd, timestamp, str(source))
        target = directory / session_file_name(timestamp, header["id"])
        lines = [serialize_line(header)] + [serialize_line(o) for o in objects if not is_header(o)]
        store = SessionStore(target)
        with store.locked():
            store.append("".join(lines))
        return cls.open(target, directory, profile=profile)

    # ================================================================================ loading

    def new_session(self, session_id: str | None = None, parent_session: str | None = None) -> str | None:
        """Start an empty session (pi's ``newSession``); returns the future file path if persistent."""
        self._full_load = None  # a deferred open's parse is no longer wanted
        timestamp = iso_now()
        self._header = make_header(session_id or uuid7(), self._cwd, timestamp, parent_session)
        self._replace_index(SessionIndex())
        self._leaf_id = None
        self._written = 0
        self._header_written = False
        self.read_only = False
        if self.persist and self.session_dir is not None:
            self._session_file = self.session_dir / session_file_name(timestamp, self._header["id"])
            self._store = SessionStore(self._session_file, self.fsync)
        else:
            self._store = None
        return str(self._session_file) if self._session_file else None

    #: A deferred open parses only part of files of at least this many bytes (~6,000 entries).
    DEFER_MIN_BYTES = 8_000_000

    def _load_first_picture(self, file_path: Path, cwd_override: str | None) -> bool:
        """The state a deferred open starts with; ``False`` (nothing changed) for an ordinary open."""
        store = SessionStore(file_path, self.fsync)
        try:
            fd = os.open(store.real_path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO must not hang the open
        except OSError:
            return False  # the ordinary open says what is wrong
        try:
            stat = os.fstat(fd)
            if not S_ISREG(stat.st_mode) or stat.st_size < max(self.DEFER_MIN_BYTES, 1):
                return False
            with mmap.mmap(fd, 0, access=mmap.ACCESS_READ) as data:  # read in place, not copied
                return self._load_skeleton(data, store, file_path, cwd_override)
        except (OSError, ValueError):
            return False
        finally:
            os.close(fd)

    def _load_skeleton(
        self, data: mmap.mmap, store: SessionStore, file_path: Path, cwd_override: str | None
    ) -> bool:
        skeleton = scan_skeleton(data)
        if skeleton is None:
            return False

        def parse_one(n: int) -> object:
            parsed = parse_session_lines([skeleton.line(n)])
            return parsed.objects[0] if parsed.objects else None

        picture = first_picture_lines(skeleton, parse_one)
        if picture is None:
            return False
        wanted = sorted(set(picture.lines) | set(picture.bookkeeping))
        # Untrimmed: a line with JavaScript whitespace after its JSON is malformed here; whether the
        # whole file's trim would keep it (the last line under pi 0.73.1) is the ordinary open's call.
        parsed = parse_session_lines([skeleton.line(n) for n in wanted], trim_end=False)
        if parsed.malformed or len(parsed.objects) != len(wanted):
            return False
        by_line: dict[int, Entry] = {}
        for n, obj in zip(wanted, parsed.objects, strict=True):
            if (
                not isinstance(obj, dict)
                or obj.get("id") != skeleton.entry_id(n)
                or obj.get("parentId") != skeleton.parent_id(n)
                or obj.get("type") != skeleton.entry_type(n)
            ):
                return False  # a key given twice, say: what the skeleton read is not the entry
            by_line[n] = obj
        index = SessionIndex.build([by_line[n] for n in picture.lines])
        index.labels.clear()
        index.label_timestamps.clear()
        index.session_name = None
        for n in picture.bookkeeping:  # every label and name in the file, in file order
            index.note_bookkeeping(by_line[n])
        index.context_edits = picture.context_edits
        index.last_id = picture.leaf_id
        self._adopt_header(skeleton.header.objects[0], cwd_override)
        self.report = OpenReport()
        self._store = store
        self._session_file = file_path
        self._replace_index(index)
        self._leaf_id = picture.leaf_id
        self._written = len(index.entries)
        self._header_written = True
        return True

    @property
    def loading(self) -> bool:
        """A deferred open whose whole file is not installed yet (see :meth:`open`)."""
        return self._full_load is not None

    def load_in_background(
        self,
        on_done: Callable[[], None] | None = None,
        prepare: Callable[[SessionIndex], object] | None = None,
    ) -> None:
        """Parse the whole file of a deferred open on a worker thread; ``on_done`` is called on that
        thread once it is parsed (then call :meth:`finish_loading` on this manager's thread).
        ``prepare``, if given, reads the parsed index on that thread first (a scan of every entry
        the first paint after the install would otherwise make on the UI thread; it must only
        read, and its errors are logged, never raised). Nothing to do (``on_done`` is not called)
        when the session is not :attr:`loading`."""
        if self._full_load is not None:
            self._full_load.start(on_done, prepare)

    def finish_loading(self, *, announce: bool = True) -> bool:
        """Install the whole file of a deferred open, waiting for its parse (or parsing it here if it
        never started); emits ``Reloaded`` (``announce=False``: the caller shows the session anew, as
        the window does: its graph then builds the whole tree off the UI thread). ``False`` when
        there was nothing to install."""
        load = self._full_load
        if load is None:
            return False
        self._full_load = None
        try:
            full = load.result()
        except (OSError, SessionError, SessionFileError) as exc:
            self._fail_loading(exc)
            return True
        except Exception as exc:  # noqa: BLE001 - a bug: said and logged, never lost in an event loop
            log.exception("the whole-file parse of %s failed", self._session_file)
            self._fail_loading(exc)
            return True
        shown_leaf = self._leaf_id
        self._cwd, self.read_only, self.report = full._cwd, full.read_only, full.report
        self._header, self._leaf_id = full._header, _followed_leaf(full, shown_leaf)
        self._header_written, self._written = full._header_written, full._written
        self._store, self._session_file = full._store, full._session_file
        self._context_cache = None
        self._replace_index(full._index)
        if announce:
            self._emit(Reloaded(self._leaf_id))
        return True

    def _fail_loading(self, exc: Exception) -> None:
        """The whole file could not be read after its first picture: show what was read, write nothing."""
        self.read_only = True
        name = self._session_file.name if self._session_file else "the session"
        self.report = OpenReport(error=f"Could not read all of {name} ({exc}); opened read-only")
        self._emit(SessionFailed(self.report.error or ""))

    def _require_loaded(self) -> None:
        if self._full_load is not None:
            self.finish_loading()

    def _load(self, file_path: Path, cwd_override: str | None) -> None:
        with _gc_paused_then_frozen():
            self._load_file(file_path, cwd_override)

    def _load_file(self, file_path: Path, cwd_override: str | None) -> None:
        self.read_only = False
        store = SessionStore(file_path, self.fsync)
        try:
            parsed, unfinished = store.read_parsed(trim_end=self._profile.trims_file_text)
        except FileNotFoundError:
            if os.path.islink(file_path):
                # A new session here would be written wherever the link points: say so instead.
                raise SessionFileError(
                    f"{file_path} is a symbolic link to {store.real_path}, which does not exist"
                ) from None
            self._start_fresh_at(file_path)
            return
        report = OpenReport(malformed_lines=list(parsed.malformed), torn_last_line=unfinished)
        objects: list[Any] = []
        for obj, line in zip(parsed.objects, parsed.line_numbers, strict=True):
            if isinstance(obj, dict):
                objects.append(obj)
            else:
                report.non_object_lines.append(line)
                report.malformed_lines.append(line)
        report.malformed_lines.sort()
        self.report = report
        self._store = store
        self._session_file = file_path

        if not objects and not parsed.objects and not parsed.malformed:
            # Empty (or whitespace-only) file: nothing to lose, so it simply becomes a new session.
            self._start_fresh_at(file_path)
            report.header_regenerated = True
            return
        if not objects or not is_valid_header(parsed.objects[0]):
            first = parsed.objects[0] if parsed.objects else None
            why = "its first line is not a session header"
            if not parsed.objects:  # only unreadable lines: say so, it is not "empty"
                why = f"none of its {len(parsed.malformed)} line(s) is readable JSON" if parsed.malformed else "it is empty"
            if first is not None and is_header(first):
                why = "its session header has no id"
            self._start_fresh_at(file_path)
            self._cwd = cwd_override or os.getcwd()
            self._header["cwd"] = self._cwd
            self.read_only = True
            report.header_regenerated = True
            report.error = f"{file_path.name} is not a valid session file ({why}); opened read-only, nothing changed"
            self.report = report
            return

        if needs_migration(objects):
            objects = self._migrate_under_lock(store, objects, report)
        self._adopt_header(objects[0], cwd_override)
        self._replace_index(SessionIndex.build([o for o in objects if not is_header(o)]))
        self._leaf_id = self._index.last_id
        self._written = len(self._index.entries)
        self._header_written = True

    def _migrate_under_lock(self, store: SessionStore, objects: list[Any], report: OpenReport) -> list[Any]:
        """Migrate the file to v3 once, however many processes open it at the same time.

        Under the lock (which follows the file across the rename, see ``SessionStore.locked``) the
        file is read again: if another process migrated it meanwhile, its v3 entries (and ids) are
        taken as they are and nothing is rewritten, so no entry is lost and no second backup made.
        """
        try:
            with store.locked():
                reread = store.read_parsed(trim_end=self._profile.trims_file_text)[0]
                fresh = [o for o in reread.objects if isinstance(o, dict)]
                if fresh and is_valid_header(fresh[0]) and not needs_migration(fresh):
                    return fresh  # migrated by someone else while we waited
                if fresh:
                    objects = fresh  # what is on disk now, entries appended meanwhile included
                migrate_objects(objects)
                report.migrated = True
                report.backup_path = store.rewrite("".join(serialize_line(o) for o in objects))
        except SessionFileError as exc:
            # Shown migrated, but nothing may be appended to a file still in the old format.
            migrate_objects(objects)
            report.migrated = True
            self.read_only = True
            report.error = f"Could not migrate {store.path.name} to the current format ({exc}); opened read-only"
        return objects

    def _start_fresh_at(self, file_path: Path) -> None:
        directory, persist = self.session_dir, self.persist
        self.session_dir, self.persist = None, False  # keep the explicit path
        self.new_session()
        self.session_dir, self.persist = directory, persist
        self._session_file = file_path
        self._store = SessionStore(file_path, self.fsync)

    # ================================================================================ events

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call ``callback`` on every change; returns a function that unsubscribes."""
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)

        return unsubscribe

    def _emit(self, event: SessionEvent) -> None:
        for callback in list(self._subscribers):
            callback(event)

    # ================================================================================ writing

    def _append(
        self, build: Callable[[str, str | None, str], Entry], parent_id: str | None | _Unset = UNSET
    ) -> str:
        """Build one entry and append it (written at once for a file session).

        The parent is ``parent_id`` when given, else the leaf *after* catching up on the file: other
        writers' entries are read first so that the leaf can follow them along our branch. A caller
        that must not follow (the agent's reply belongs under its own request) passes ``parent_id``.
        """
        self._require_loaded()
        if self.read_only:
            raise SessionReadOnlyError(self.report.error or "This session is read-only")
        store = self._store if self.persist else None
        if store is None:
            entry = build(new_entry_id(self._index.by_id), self._parent_for(parent_id), iso_now())
            self._add(entry)
            return str(entry["id"])
        if self._header_written and store.changed_on_disk() == "missing":
            # The file was deleted or moved away: write everything we hold again, nothing is lost.
            self._written, self._header_written = 0, False
            store.forget()
        with store.locked():
            self._follow_external(store, locked=True)
            if self.read_only:  # the file was replaced by something that is not a session
                raise SessionReadOnlyError(self.report.error or "This session is read-only")
            entry = build(new_entry_id(self._index.by_id), self._parent_for(parent_id), iso_now())
            self._add(entry)
            self._flush(store)
        return str(entry["id"])

    def _parent_for(self, parent_id: str | None | _Unset) -> str | None:
        return self._leaf_id if isinstance(parent_id, _Unset) else parent_id

    def _add(self, entry: Entry) -> None:
        fresh_id = key_of(entry.get("id")) not in self._index.by_id
        cached = self._context_cache
        before = self._revision
        self._index.add(entry)
        self._revision += 1
        self._leaf_id = entry["id"]
        if cached is not None and fresh_id and cached[0] == (entry.get("parentId"), before):
            extended = extend_context(cached[1], entry, profile=self._profile)
            if extended is not None:  # one more entry under the leaf: no need to walk the whole path again
                self._context_cache = ((self._leaf_id, self._revision), extended)
        self._emit(EntryAppended(entry, self._leaf_id))

    def _adopt_header(self, header: Entry, cwd_override: str | None) -> None:
        """The file's header and the folder its tools run in (``cwd_override``, else the header's
        ``cwd``, else this process's): one rule for the ordinary and the skeleton-first open."""
        self._header = header
        if cwd_override:
            self._cwd = cwd_override
        else:
            cwd = header.get("cwd")
            self._cwd = cwd if isinstance(cwd, str) and cwd else os.getcwd()

    def _replace_index(self, index: SessionIndex) -> None:
        self._index = index
        self._revision += 1

    def _pending(self) -> list[Entry]:
        pending = self._index.entries[self._written :]
        return pending if self._header_written else [self._header, *pending]

    @contextmanager
    def deferred_sync(self) -> Iterator[None]:
        """Appends inside write at once but leave the fsync to :meth:`sync` (e.g. on a worker thread).

        The agent uses this for the user's message: written before the request goes out, made durable
        off the UI thread while the request is being prepared.
        """
        self._defer_sync = True
        try:
            yield
        finally:
            self._defer_sync = False

    def sync(self) -> None:
        """fsync what :meth:`deferred_sync` appended (safe to call from a worker thread)."""
        if self._store is not None and self.persist:
            self._store.sync()

    @contextmanager
    def background_sync(self) -> Iterator[None]:
        """Appends inside write at once; their fsync runs on a worker thread when the block ends.

        For appends made on the UI thread while a reply streams or a compaction lands: an fsync
        takes 20-100 ms, a visible freeze there. The lines are in the file (a crash of the app
        loses nothing) before the block ends; the fsync, which guards against a crash of the
        machine, follows moments later. A failed one is logged and left for the next :meth:`sync`.
        """
        with self.deferred_sync():
            yield
        store = self._store
        if store is not None and self.persist and store.unsynced:
            serial_worker("fsync").submit(self.sync).add_done_callback(_log_sync_failure)


    def _flush(self, store: SessionStore) -> None:
        """Write every entry not yet on disk (the header first, if needed) in one durable append."""
        pending = self._pending()
        if not pending:
            return
        try:
            caught_up = store.append("".join(serialize_line(e) for e in pending), sync=not self._defer_sync)
        except SessionFileError as exc:
            self._emit(SessionFailed(str(exc)))
            raise
        self._header_written = True
        if caught_up:
            self._written = len(self._index.entries)
        if store.changed_on_disk() == "appended":
            # Another program wrote around our write: read its lines now, so the tree misses nothing.
            # Unless caught up, the read starts before our lines, which place theirs in file order.
            self._load_appended(store)
        self._written = len(self._index.entries)

    def _follow_external(self, store: SessionStore, *, locked: bool) -> list[Entry]:
        """Take in what another program did to the file since we last looked.

        Appends are read incrementally. A replaced file is reloaded, unless entries of ours are not
        on disk yet (they would be lost): then it is reported and nothing changes. A vanished file is
        written again in full at the next append, from memory, so nothing is lost.
        """
        if not self._header_written:
            return []
        change = store.changed_on_disk()
        if change == "appended":
            return self._load_appended(store)
        if change == "missing":
            self._emit(SessionFailed(f"{store.path} was removed or moved"))
            return []
        if change == "replaced":
            if self._pending():
                message = f"{store.path} was replaced by another program; unsaved entries are kept in memory"
                self._emit(SessionFailed(message))
                if locked:
                    raise SessionFileError(message)
                return []
            self._reload()
        return []

    def _load_appended(self, store: SessionStore) -> list[Entry]:
        old_leaf = self.get_leaf_entry()
        text, first_line = store.read_appended()
        parsed = parse_session_text(text, trim_end=self._profile.trims_file_text)
        by_id = self._index.by_id
        pending = self._index.entries[self._written :]  # ours, not yet known to be on disk
        pending_ids = {id(e) for e in pending}
        new: list[Entry] = []
        in_file_order: list[Entry] = []  # new entries and any of ours read back, as the file has them
        for obj in parsed.objects:
            if not isinstance(obj, dict) or is_header(obj):
                continue
            known = by_id.get(key_of(obj.get("id")))
            if _same_entry(known, obj):  # a line we know (ours, read back after a race)
                if known is not None and id(known) in pending_ids:
                    pending_ids.discard(id(known))
                    in_file_order.append(known)
                continue
            new.append(obj)
            in_file_order.append(obj)
        if parsed.malformed:
            self.report.malformed_lines.extend(first_line - 1 + n for n in parsed.malformed)  # file line numbers
            self._emit(SessionFailed(f"Skipped {len(parsed.malformed)} unreadable appended line(s)"))
        if new and pending:
            # Entries of ours come before, between or after these in the file (a failed write left
            # them in memory, or another writer raced ours): rebuild the index in file order, with
            # ours that are not on disk yet at the end.
            unwritten = [e for e in pending if id(e) in pending_ids]
            self._replace_index(SessionIndex.build(self._index.entries[: self._written] + in_file_order + unwritten))
        else:
            for entry in new:
                self._index.add(entry)
                self._revision += 1
        self._written += len(new)
        if new:
            # Follow the other writer only along our own branch: an entry it appended elsewhere must
            # not become the parent of our next message.
            if old_leaf is None or any(e is old_leaf for e in self._index.path_to(new[-1])):
                self._leaf_id = self._index.last_id
            self._emit(ExternalAppend(tuple(new), self._leaf_id))
        return new

    def _reload(self) -> None:
        assert self._session_file is not None
        self._full_load = None  # the file is read again in full right here
        cwd_override = self._cwd if self._cwd != self._header.get("cwd") else None
        self._load(self._session_file, cwd_override)
        self._emit(Reloaded(self._leaf_id))

    def poll_external_changes(self) -> list[Entry]:
        """Load entries another program appended since the last read; emits ``external_append``."""
        store = self._store
        if store is None or not self.persist or self._full_load is not None:
            return []  # a deferred open's whole-file parse reads what was appended meanwhile
        return self._follow_external(store, locked=False)

    # ---------------------------------------------------------------------------- append_*

    def append_message(self, message: Message, *, parent_id: str | None | _Unset = UNSET) -> str:
        """Append a message entry under the leaf, or exactly under ``parent_id`` when given.

        With ``parent_id`` the entry's ``parentId`` is that id even if another writer extended the
        file since the caller last looked (their entries are still read into the tree); ``None``
        makes a new root. The leaf becomes the new entry either way. With pi 1.6.0's profile an assistant
        message is stored with its keys in 1.6.0's order (equal as a dict, so callers see no difference).
        """
        if self._profile.response_fields_first:
            message = in_1_6_key_order(message)
        return self._append(lambda i, p, t: make_message_entry(i, p, t, message), parent_id)

    def append_thinking_level_change(self, thinking_level: str) -> str:
        return self._append(lambda i, p, t: make_thinking_level_entry(i, p, t, thinking_level))

    def append_model_change(self, provider: str, model_id: str) -> str:
        return self._append(lambda i, p, t: make_model_change_entry(i, p, t, provider, model_id))

    def append_compaction(
        self,
        summary: str,
        first_kept_entry_id: str | None,
        tokens_before: int | float,
        details: Any = None,
        from_hook: bool | None = None,
        usage: Any = None,
    ) -> str:
        """Append a compaction under the leaf, in the profile's way (pi16-delta.md §2.4).

        pi 1.6.0 also records the prompt the model had (the replay of the path's ``system`` messages,
        stamped with the compaction's time) as ``systemMessage``, since the compaction hides them;
        and a compaction that keeps nothing names itself as ``firstKeptEntryId``.
        """
        profile = self._profile

        def build(entry_id: str, parent_id: str | None, timestamp: str) -> Entry:
            first_kept = first_kept_entry_id
            if first_kept is None and profile.compaction_self_first_kept:
                first_kept = entry_id
            checkpoint = None
            if profile.record_system_prompt:
                checkpoint = current_system_message(self.build_session_context().messages)
                if checkpoint is not None:
                    checkpoint["timestamp"] = js_date_ms(timestamp)
            return make_compaction_entry(
                entry_id, parent_id, timestamp, summary, first_kept, tokens_before, details, from_hook, usage, checkpoint
            )

        return self._append(build)

    def append_context_edit(self, target_id: str, replacement: dict[str, Any] | None) -> str:
        """Change what an earlier entry on the current branch gives the model (pi 1.6.0's ``context_edit``).

        ``None`` omits the entry; ``{"content": ...}`` replaces its content (a string becomes one text
        block for assistant and tool-result messages, as pi stores it). Raises ``SessionError`` where pi
        throws: a malformed replacement, an unknown target, one off the current branch, or one that is
        not a user/assistant/tool-result message or custom message.
        """
        if replacement is not None and (
            not isinstance(replacement, dict) or not isinstance(replacement.get("content"), (str, list))
        ):
            raise SessionError("Context edit replacement must be null or {content: string | array}")
        target = self._index.by_id.get(key_of(target_id))
        if target is None:
            raise SessionError(f"Entry {target_id} not found")
        branch = self._index.get_branch(self._leaf_id) if self._leaf_id is not None else []
        if not any(entry is target for entry in branch):
            raise SessionError(f"Entry {target_id} is not on the current branch")
        message = target.get("message")
        role = message.get("role") if isinstance(message, dict) else None
        if not (target.get("type") == "custom_message" or (target.get("type") == "message" and role in _EDITABLE)):
            raise SessionError(f"Entry {target_id} cannot be edited")
        if replacement is not None and isinstance(replacement["content"], str) and role in ("assistant", "toolResult"):
            replacement = {"content": [{"type": "text", "text": replacement["content"]}]}
        return self._append(lambda i, p, t: make_context_edit_entry(i, p, t, target_id, replacement))

    def append_copy(self, original: Entry, changes: dict[str, Any] | None = None) -> str:
        """Append a copy of ``original`` under the leaf: its own id, ``parentId`` and ``timestamp`` (the
        time of this write), every other key as it is and where it is, ``changes`` applied (e.g. an edit's
        ``targetId`` pointing at another copy). The message inside keeps its own ``timestamp``.

        ``AgentSession.expand_compaction`` copies a compacted branch with it; the copy is an ordinary entry
        pi reads like any other.
        """
        if is_header(original) or not isinstance(original.get("type"), str):
            raise SessionError("Only entries can be copied")

        def build(entry_id: str, parent_id: str | None, timestamp: str) -> Entry:
            entry = dict(original)
            entry.update(id=entry_id, parentId=parent_id, timestamp=timestamp)
            entry.update(changes or {})
            return entry

        return self._append(build)

    def append_usage(
        self, kind: str, provider: str, model: str, usage: dict[str, Any], note: str | None = None
    ) -> str:
        """Record usage that is not part of the context (pi 1.6.0's ``usage`` entry, e.g. cache warming)."""
        return self._append(lambda i, p, t: make_usage_entry(i, p, t, kind, provider, model, usage, note))

    def append_custom_entry(self, custom_type: str, data: Any = None, *, parent_id: str | None | _Unset = UNSET) -> str:
        """pi's ``appendCustomEntry``: under the leaf, or exactly under ``parent_id`` (see :meth:`append_message`)."""
        return self._append(lambda i, p, t: make_custom_entry(i, p, t, custom_type, data), parent_id)

    def append_custom_message_entry(
        self, custom_type: str, content: str | list[Any], display: bool, details: Any = None
    ) -> str:
        return self._append(
            lambda i, p, t: make_custom_message_entry(i, p, t, custom_type, content, display, details)
        )

    def append_session_info(self, name: str) -> str:
        """Name the session; pi 1.6.0 turns line breaks into one space first (0.73.1 only trims)."""
        if self._profile.collapse_name_newlines:
            name = _LINE_BREAKS.sub(" ", name)
        trimmed = js_trim(name)
        return self._append(lambda i, p, t: make_session_info_entry(i, p, t, trimmed))

    def append_label_change(self, target_id: str, label: str | None = None) -> str:
        if key_of(target_id) not in self._index.by_id:
            raise SessionError(f"Entry {target_id} not found")
        return self._append(lambda i, p, t: make_label_entry(i, p, t, target_id, label))

    # ---------------------------------------------------------------------------- moving the leaf

    def branch(self, branch_from_id: str) -> None:
        """Move the leaf to an existing entry; the next append starts a sibling branch there."""
        self._require_loaded()
        if key_of(branch_from_id) not in self._index.by_id:
            raise SessionError(f"Entry {branch_from_id} not found")
        previous, self._leaf_id = self._leaf_id, branch_from_id
        self._emit(LeafMoved(branch_from_id, previous))

    def reset_leaf(self) -> None:
        """No leaf: the next append creates a new root."""
        self._require_loaded()
        previous, self._leaf_id = self._leaf_id, None
        self._emit(LeafMoved(None, previous))

    def branch_with_summary(
        self,
        branch_from_id: str | None,
        summary: str,
        details: Any = None,
        from_hook: bool | None = None,
        usage: Any = None,
    ) -> str:
        """Move to ``branch_from_id`` and append a ``branch_summary`` there (pi-spec §3.6).

        ``fromId`` is the entry branched from in pi 0.73.1, the abandoned leaf in pi 1.6.0 (``"root"``
        when there is none); ``usage`` is the summarizer's.

        For summaries Arbor makes itself (``from_hook`` falsy, ``details`` a dict or absent) the
        abandoned leaf is kept in ``details.abandonedLeafId`` so the graph can show what was
        summarized; pi ignores the extra key.
        """
        self._require_loaded()
        if branch_from_id is not None and key_of(branch_from_id) not in self._index.by_id:
            raise SessionError(f"Entry {branch_from_id} not found")
        abandoned = self._leaf_id
        if not from_hook and abandoned is not None and (details is None or isinstance(details, dict)):
            details = {**(details or {}), "abandonedLeafId": abandoned}
        self._leaf_id = branch_from_id
        origin = abandoned if self._profile.branch_from_old_leaf else branch_from_id
        from_id = origin if origin is not None else "root"
        return self._append(
            lambda i, p, t: make_branch_summary_entry(i, p, t, from_id, summary, details, from_hook, usage)
        )

    # ---------------------------------------------------------------------------- new files

    def create_branched_session(self, leaf_id: str) -> str | None:
        """Copy the path to ``leaf_id`` (and its labels) into a new session file (pi-spec §3.7).

        Returns the new file's path (``None`` in memory). Unlike pi, the copy is written at once
        even when it holds no assistant message yet, so nothing copied is ever lost.
        """
        self._require_loaded()
        path = self._index.get_branch(leaf_id)
        if not path:
            raise SessionError(f"Entry {leaf_id} not found")
        # pi drops the path's label entries (their labels are re-added at the end). Unlike pi 0.73.1,
        # the entry below a dropped label is re-linked to the label's parent, so the copy stays one
        # tree with the same context (DESIGN.md §6; pi fixed this after 0.73.1).
        dropped = {e["id"]: e.get("parentId") for e in path if e.get("type") == "label" and isinstance(e.get("id"), str)}
        kept: list[Entry] = []
        for entry in path:
            if entry.get("type") == "label":
                continue
            parent_id = entry.get("parentId")
            if isinstance(parent_id, str) and parent_id in dropped:
                seen: set[str] = set()
                while isinstance(parent_id, str) and parent_id in dropped and parent_id not in seen:
                    seen.add(parent_id)
                    parent_id = dropped[parent_id]
                entry = {**entry, "parentId": parent_id}  # a copy: the key keeps its place
            kept.append(entry)
        on_path = {e.get("id") for e in kept}
        labels = [(t, lbl) for t, lbl in self._index.labels.items() if t in on_path]
        timestamp = iso_now()
        parent_session = str(self._session_file) if self.persist and self._session_file else None
        header = make_header(uuid7(), self._cwd, timestamp, parent_session)
        used = {str(e.get("id")) for e in kept}
        label_entries: list[Entry] = []
        parent = kept[-1].get("id") if kept else None
        for target, label in labels:
            new_id = new_entry_id(used)
            used.add(new_id)
            ts = self._index.label_timestamps.get(target) or timestamp
            label_entries.append(make_label_entry(new_id, parent, ts, target, label))
            parent = new_id

        self._header = header
        self._replace_index(SessionIndex.build(kept + label_entries))
        self._leaf_id = self._index.last_id
        self._written = 0
        self._header_written = False
        self.read_only = False
        if self.persist and self.session_dir is not None:
            self._session_file = self.session_dir / session_file_name(timestamp, header["id"])
            self._store = SessionStore(self._session_file, self.fsync)
            with self._store.locked():
                self._flush(self._store)
            self._emit(Reloaded(self._leaf_id))
            return str(self._session_file)
        self._emit(Reloaded(self._leaf_id))
        return None

    # ================================================================================ queries

    @property
    def profile(self) -> PiProfile:
        """Whose answers this session gives and whose way it writes (fixed when it was opened)."""
        return self._profile

    @property
    def leaf_id(self) -> str | None:
        return self._leaf_id

    @property
    def session_file(self) -> str | None:
        return str(self._session_file) if self._session_file else None

    @property
    def session_id(self) -> str:
        return str(self._header.get("id"))

    @property
    def cwd(self) -> str:
        return self._cwd

    @property
    def index(self) -> SessionIndex:
        """The live index (read-only use: views and the compaction engine)."""
        return self._index

    def get_header(self) -> Entry:
        return self._header

    def get_entries(self) -> list[Entry]:
        return list(self._index.entries)

    def has_entries(self) -> bool:
        """Whether any entry exists (without the copy of 100,000 entries :meth:`get_entries` makes)."""
        return bool(self._index.entries)

    def get_entry(self, entry_id: str) -> Entry | None:
        return self._index.by_id.get(key_of(entry_id))

    def get_leaf_entry(self) -> Entry | None:
        return self._index.by_id.get(key_of(self._leaf_id)) if self._leaf_id is not None else None

    def get_children(self, parent_id: str | None) -> list[Entry]:
        return self._index.get_children(parent_id)

    def get_label(self, entry_id: str) -> str | None:
        return self._index.labels.get(entry_id)

    def get_label_timestamp(self, entry_id: str) -> str | None:
        return self._index.label_timestamps.get(entry_id)

    def get_session_name(self) -> str | None:
        return self._index.session_name

    def get_branch(self, from_id: str | None = None, *, remember: bool = True) -> list[Entry]:
        """Root → ``from_id`` (default: the leaf). ``remember=False``: safe on a worker thread
        (see :meth:`SessionIndex.path_to`)."""
        return self._index.get_branch(self._leaf_id if from_id is None else from_id, remember=remember)

    def get_context_branch(self, from_id: str | None = None) -> list[Entry]:
        """The end of :meth:`get_branch` a compaction at ``from_id`` (default: the leaf) reads; safe
        on a worker thread (see :meth:`SessionIndex.context_branch`)."""
        return self._index.context_branch(self._leaf_id if from_id is None else from_id)

    def get_tree(self) -> list[TreeNode]:
        self._require_loaded()
        return self._index.get_tree()

    def build_session_context(self, leaf_id: str | None = None) -> SessionContext:
        """The context the model sees at ``leaf_id`` (default: the current leaf; empty without a leaf).

        The current leaf's context is remembered until the leaf moves or the tree changes: the agent,
        the chat and the meter all ask for it around every turn, and on a long path each build walks
        thousands of entries. The returned context is shared: read it, don't change it.
        """
        profile = self._profile
        if leaf_id is not None and leaf_id != self._leaf_id:
            return build_session_context(self._index.entries, leaf_id, self._index, profile=profile)
        key = (self._leaf_id, self._revision)
        cached = self._context_cache
        if cached is None or cached[0] != key:
            context = build_session_context(self._index.entries, self._leaf_id, self._index, profile=profile)
            cached = self._context_cache = (key, context)
        return cached[1]

    def has_unwritten_entries(self) -> bool:
        return self.persist and self._written < len(self._index.entries)

    def close(self) -> None:
        """Flush what is pending (if possible) and drop subscribers; locks are never held between calls."""
        if self.persist and self._store is not None and not self.read_only and self.has_unwritten_entries():
            try:
                with self._store.locked():
                    self._flush(self._store)
            except SessionFileError:
                pass
        self._subscribers.clear()


class _FullLoad:
    """The whole-file open behind a deferred one: run once, on a worker thread or by whoever waits first."""

    def __init__(self, open_full: Callable[[], SessionManager]) -> None:
        self._open_full = open_full
        self._future: Future[SessionManager] = Future()
        self._lock = threading.Lock()
        self._started = False

    def start(
        self, on_done: Callable[[], None] | None = None, prepare: Callable[[SessionIndex], object] | None = None
    ) -> None:
        with self._lock:
            if self._started:
                return
            self._started = True
        threading.Thread(target=self._run, args=(on_done, prepare), name="arbor-open", daemon=True).start()

    def _run(self, on_done: Callable[[], None] | None, prepare: Callable[[SessionIndex], object] | None = None) -> None:
        try:
            full = self._open_full()
        except BaseException as exc:  # noqa: BLE001 - handed to whoever waits for the result
            self._future.set_exception(exc)
        else:
            if prepare is not None:
                try:
                    prepare(full._index)
                except Exception:  # noqa: BLE001 - only a head start: the UI thread does it anyway
                    log.exception("preparing the parsed index of %s failed", full._session_file)
            self._future.set_result(full)
        if on_done is not None:
            on_done()

    def result(self) -> SessionManager:
        with self._lock:
            run_here = not self._started
            self._started = True
        if run_here:
            self._run(None)
        return self._future.result()


def _log_sync_failure(done: Future[None]) -> None:
    error = done.exception()
    if error is not None:
        log.warning("background fsync failed (the next sync retries): %s", error)


@contextmanager
def _gc_paused_then_frozen() -> Iterator[None]:
    """Run a large parse without the cyclic GC, then move what it allocated out of the GC's sight.

    Parsing allocates ~10 objects per entry; the cyclic GC would rescan them all again and again (40%
    of the time of a large open), and session data holds no cycles, so it waits until the block is
    done. Afterwards the loaded objects are frozen (``gc.freeze``): otherwise the next full collection
    walks millions of them (~0.5 s at 100k entries), a UI stall. Frozen objects are still freed by
    reference counting when the session is closed. Does nothing to the GC if it was already disabled.
    """
    gc_was_enabled = gc.isenabled()
    if gc_was_enabled:
        gc.collect()  # so that no garbage already around gets frozen (and kept) below
    gc.disable()
    try:
        yield
    finally:
        if gc_was_enabled:
            gc.freeze()
            gc.enable()


def _followed_leaf(full: SessionManager, shown_leaf: str | None) -> str | None:
    """The leaf once a deferred open's whole file is in: the file's last entry (as at any open)
    only if it continues the branch that was shown; else what was shown. Another program's lines
    appended on another branch while the file was parsed must not carry our next message there,
    as :meth:`SessionManager._load_appended` does not let them after an ordinary open."""
    leaf = full.leaf_id
    if shown_leaf is None or leaf == shown_leaf or full.get_entry(shown_leaf) is None:
        return leaf
    path = full.index.path_to(full.get_leaf_entry(), remember=False)
    return leaf if any(entry.get("id") == shown_leaf for entry in path) else shown_leaf


def _same_entry(known: Entry | None, entry: Entry) -> bool:
    """Our own line read back (after another writer raced us): same id and same content."""
    return known is not None and known == entry


#: For other readers of large files made into sessions (Claude Code transcripts): the same pause.
gc_paused_then_frozen = _gc_paused_then_frozen
