"""The session file on disk: tolerant reads, durable appends, atomic rewrites, following other writers.

pi appends with no lock and no fsync, glues a new line onto a torn last line, and rewrites files in
place on migration (pi-spec §3.2, §7). Arbor keeps pi's format but not those risks (DESIGN.md §2):

* every append is one ``write`` under an exclusive ``flock`` on the file, then flushed and fsynced;
* a file that does not end in ``\\n`` is terminated before the next append, so a torn line can never
  swallow a complete entry; until then an unterminated last line is "not yet complete" (another
  writer may be between two ``write`` calls), at open as while following, never reported as torn;
* a rewrite (migration) first copies the original next to it, then replaces it atomically
  (temp file, fsync, rename, fsync of the directory);
* bytes appended by anyone else (pi, another Arbor) are noticed by size/inode and read incrementally;
* a file opened through a symbolic link (or a chain of them) is read, locked, appended to and
  rewritten where the link points, resolved once: a rewrite replaces the real file (its backup lies
  beside it) and leaves the link a link. Messages name the path the user gave.
"""

from __future__ import annotations

import errno
import fcntl
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from stat import S_ISREG

from .entries import ParsedText, parse_session_lines

FILE_MODE = 0o600


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to ``fd`` (``os.write`` may write less than it was given)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class SessionFileError(Exception):
    """A session file cannot be read or written; the message is meant for the user."""


@dataclass
class FileSnapshot:
    """The text of the file as read, and where complete lines end."""

    text: str
    size: int
    consumed: int  # bytes up to and including the last "\n"
    ends_with_newline: bool
    inode: int
    lines: int = 0  # complete lines in those bytes


def _decode(data: bytes) -> str:
    # Node's readFileSync(path, "utf8") replaces invalid sequences with U+FFFD, as does "replace".
    return data.decode("utf-8", errors="replace")


class SessionStore:
    """One session file. Holds no file descriptor between operations; locks only while writing.

    :attr:`path` is the path as given (shown to the user); :attr:`real_path` is that path with every
    symbolic link resolved, where all reading and writing happens: ``os.replace`` onto a link would
    replace the link itself with a copy and leave the file it points to behind.
    """

    def __init__(self, path: Path, fsync: bool = True) -> None:
        self.path = path
        self.real_path = Path(os.path.realpath(path))
        self.fsync = fsync
        self.consumed = 0  # bytes of complete lines this process has accounted for
        self.lines = 0  # how many lines those bytes hold: the next unread line is number lines + 1
        self.size = 0
        self.inode = -1
        self.ends_with_newline = True

    # ------------------------------------------------------------------------------------ reading

    def exists(self) -> bool:
        return self.real_path.exists()

    def _open_regular(self) -> int:
        try:
            # O_NONBLOCK: opening a FIFO must not hang; anything but a regular file is refused.
            fd = os.open(self.real_path, os.O_RDONLY | os.O_NONBLOCK)
        except FileNotFoundError:
            raise
        except OSError as exc:
            raise SessionFileError(f"Cannot read {self.path}: {exc.strerror or exc}") from exc
        if not S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise SessionFileError(f"{self.path} is not a regular file")
        return fd

    def read(self) -> FileSnapshot:
        """Read the whole file; raises :class:`SessionFileError` if it cannot be read at all."""
        fd = self._open_regular()
        try:
            stat = os.fstat(fd)
            with os.fdopen(fd, "rb", closefd=False) as fh:
                data = fh.read()
        except OSError as exc:
            raise SessionFileError(f"Cannot read {self.path}: {exc.strerror or exc}") from exc
        finally:
            os.close(fd)
        last_nl = data.rfind(b"\n")
        snapshot = FileSnapshot(
            text=_decode(data),
            size=len(data),
            consumed=last_nl + 1,
            ends_with_newline=not data or data.endswith(b"\n"),
            inode=stat.st_ino,
            lines=data.count(b"\n"),
        )
        self._remember(snapshot.size, snapshot.consumed, snapshot.ends_with_newline, snapshot.inode, snapshot.lines)
        return snapshot

    def read_parsed(self, *, trim_end: bool = True) -> tuple[ParsedText, bool]:
        """Parse the file line by line as pi reads it, without holding it as one string.

        Returns the parse and whether the file ends in an unfinished line: an unterminated last line
        that is not a whole entry. It is treated as following treats it (issue 13 item 8): maybe a
        line another program is half-way through writing, so not a malformed one. It is left out of
        the parse, unreported, and stays unread (:attr:`consumed` ends before it), so the next
        :meth:`read_appended` takes it whole once the rest has arrived. It is called malformed only
        when Arbor is about to append after it (see :meth:`append`), or when it is all the file holds
        (there is nothing else to open). An unterminated last line that parses is kept (a complete
        entry that lacks only its ``\n``, as pi keeps it) and is not unfinished. ``trim_end``: see
        :func:`~.entries.parse_session_lines` (``False`` reads as pi 1.6.0 does).
        """
        fd = self._open_regular()
        size = 0
        last = b""
        count = 0
        try:
            stat = os.fstat(fd)
            with os.fdopen(fd, "rb", closefd=False, buffering=1 << 20) as fh:

                def lines() -> Iterator[bytes]:
                    nonlocal size, last, count
                    for raw in fh:
                        size += len(raw)
                        last = raw
                        count += 1
                        yield raw[:-1] if raw.endswith(b"\n") else raw

                parsed = parse_session_lines(lines(), trim_end=trim_end)
        except OSError as exc:
            raise SessionFileError(f"Cannot read {self.path}: {exc.strerror or exc}") from exc
        finally:
            os.close(fd)
        ends_with_newline = not last or last.endswith(b"\n")
        consumed = size if ends_with_newline else size - len(last)
        self._remember(size, consumed, ends_with_newline, stat.st_ino, count if ends_with_newline else count - 1)
        unfinished = not ends_with_newline and parsed.malformed[-1:] == [count]
        if unfinished and (parsed.objects or len(parsed.malformed) > 1):
            return ParsedText(parsed.objects, parsed.line_numbers, parsed.malformed[:-1]), True
        return parsed, unfinished

    def _remember(self, size: int, consumed: int, ends_with_newline: bool, inode: int, lines: int) -> None:
        self.size, self.consumed, self.ends_with_newline, self.inode = size, consumed, ends_with_newline, inode
        self.lines = lines

    def forget(self) -> None:
        """Start over as if the file had never been read (it vanished and will be written anew)."""
        self._remember(0, 0, True, -1, 0)

    def changed_on_disk(self) -> str | None:
        """``"missing"``, ``"replaced"`` (other inode or shorter), ``"appended"`` (grew), or ``None``."""
        try:
            stat = os.stat(self.real_path)
        except FileNotFoundError:
            return "missing" if self.inode != -1 else None
        if self.inode == -1:
            return "replaced" if stat.st_size else None
        if stat.st_ino != self.inode or stat.st_size < self.size:
            return "replaced"
        if stat.st_size > self.size:
            return "appended"
        return None

    def read_appended(self) -> tuple[str, int]:
        """Complete lines appended since the last read or write (a partial last line waits), and the
        file line number of the first of them (so a bad line is reported where it is in the file)."""
        with open(self.real_path, "rb") as fh:
            fh.seek(self.consumed)
            data = fh.read()
        last_nl = data.rfind(b"\n")
        complete = data[: last_nl + 1]
        new_size = self.consumed + len(data)
        first_line = self.lines + 1
        self._remember(new_size, self.consumed + len(complete), data.endswith(b"\n") or not data, self.inode,
                       self.lines + complete.count(b"\n"))
        return _decode(complete), first_line

    # ------------------------------------------------------------------------------------ writing

    @contextmanager
    def locked(self, timeout: float = 10.0) -> Iterator[None]:
        """Hold Arbor's exclusive advisory lock on the file (created 0600 if missing).

        The lock is taken on the inode at :attr:`real_path` and kept only if that is still the file
        there once it is held: a rewrite (``os.replace``) gives the path a new, unlocked inode.
        """
        self.real_path.parent.mkdir(parents=True, exist_ok=True)
        deadline = time.monotonic() + timeout
        while True:
            fd = os.open(self.real_path, os.O_RDWR | os.O_CREAT | os.O_APPEND, FILE_MODE)
            try:
                while True:
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        break
                    except OSError as exc:
                        if exc.errno not in (errno.EAGAIN, errno.EACCES) or time.monotonic() > deadline:
                            raise SessionFileError(f"{self.path} is locked by another writer") from exc
                        time.sleep(0.005)
                try:
                    current = os.stat(self.real_path).st_ino
                except FileNotFoundError:
                    current = -1
            except BaseException:
                os.close(fd)
                raise
            if current == os.fstat(fd).st_ino:
                break
            # The file was replaced (a migration renamed a new file over it) while we waited: this lock
            # is on a file nobody reads any more. Lock the one at the path now.
            os.close(fd)
        try:
            self._fd = fd
            yield
        finally:
            self._fd = -1
            os.close(fd)  # closing releases the flock

    _fd: int = -1

    def append(self, text: str, *, sync: bool = True) -> bool:
        """Append whole lines (``text`` ends with ``\\n``) durably. Call inside :meth:`locked`.

        Returns ``True`` when every byte up to the end of our write has been accounted for, ``False``
        when the next :meth:`read_appended` must start before our lines.

        Bytes another program wrote since our last read are never marked as read here: if the file
        is not exactly as we last saw it, the read mark stays where it was, and the next
        :meth:`read_appended` returns those lines (and ours, which the reader recognises).
        """
        if self._fd < 0:
            with self.locked():
                return self.append(text, sync=sync)
        fd = self._fd
        stat = os.fstat(fd)
        if stat.st_size and not self._ends_with_newline(fd, stat.st_size):
            # Another writer may be half-way through a line (pi writes a line in one call, others may
            # not): give it a moment to finish before calling the line torn.
            stat = self._wait_for_line_end(fd, stat)
        prefix = b""
        if stat.st_size and not self._ends_with_newline(fd, stat.st_size):
            prefix = b"\n"  # a torn last line (a crash mid-write): never glue our entry onto it
        data = prefix + text.encode("utf-8", errors="surrogatepass")
        try:
            write_all(fd, data)
            if self.fsync and sync:
                os.fsync(fd)
            elif self.fsync:
                self.unsynced = True
        except OSError as exc:
            # Take back a partial (or unsynced) write, so that retrying it later never duplicates lines.
            try:
                os.ftruncate(fd, stat.st_size)
            except OSError:
                pass
            raise SessionFileError(f"Cannot write {self.path}: {exc.strerror or exc}") from exc
        after = os.fstat(fd).st_size
        expected = stat.st_size + len(data)
        same_file = stat.st_ino == self.inode or (self.inode == -1 and stat.st_size == 0)  # -1: never read
        seen_all = stat.st_size == self.size == self.consumed and same_file
        if after == expected and seen_all:
            self._remember(expected, expected, True, stat.st_ino, self.lines + data.count(b"\n"))
            return True
        # Someone else wrote between our last read and this write (or during it): keep the read mark,
        # and let the size say "grown" so that the next look reads from there (our lines included).
        self._remember(self.consumed, self.consumed, True, stat.st_ino, self.lines)
        return False

    def _ends_with_newline(self, fd: int, size: int) -> bool:
        os.lseek(fd, size - 1, os.SEEK_SET)
        return os.read(fd, 1) == b"\n"

    line_end_patience: float = 0.5
    """Seconds an append waits for another writer to finish its last line before calling it torn."""

    def _wait_for_line_end(self, fd: int, stat: os.stat_result) -> os.stat_result:
        """Wait up to :attr:`line_end_patience` seconds while the file keeps ending in an unfinished line."""
        deadline = time.monotonic() + self.line_end_patience
        while time.monotonic() < deadline:
            time.sleep(0.01)
            stat = os.fstat(fd)
            if self._ends_with_newline(fd, stat.st_size):
                break
        return stat

    unsynced = False

    def sync(self) -> None:
        """Make earlier ``append(..., sync=False)`` writes durable."""
        if not self.unsynced:
            return
        # Cleared before the fsync, which may run on a worker thread: an append made meanwhile
        # sets it again, and the next sync covers that append too.
        self.unsynced = False
        try:
            fd = os.open(self.real_path, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            self.unsynced = True
            raise SessionFileError(f"Cannot sync {self.path}: {exc.strerror or exc}") from exc

    def rewrite(self, text: str, keep_backup: bool = True) -> Path | None:
        """Replace the file's content atomically; the old file is kept as ``<name>.bak-<time>``.

        Through a link, the file it points to is replaced (the temporary file and the backup lie
        beside it, named after it) and the link is left as it is.
        """
        backup: Path | None = None
        replaced = False
        real = self.real_path
        directory = real.parent
        directory.mkdir(parents=True, exist_ok=True)
        tmp = real.with_name(f".{real.name}.tmp-{os.getpid()}")
        data = text.encode("utf-8", errors="surrogatepass")
        try:
            if keep_backup and real.exists():
                stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
                backup = real.with_name(f"{real.name}.bak-{stamp}")
                n = 1
                while backup.exists():
                    backup = real.with_name(f"{real.name}.bak-{stamp}-{n}")
                    n += 1
                shutil.copy2(real, backup)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
            try:
                write_all(fd, data)
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, real)
            replaced = True
            dir_fd = os.open(directory, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            if backup is not None and not replaced:
                backup.unlink(missing_ok=True)  # nothing was replaced: a failed attempt leaves no backup
            raise SessionFileError(f"Cannot rewrite {self.path}: {exc.strerror or exc}") from exc
        stat = os.stat(real)
        self._remember(len(data), len(data), True, stat.st_ino, data.count(b"\n"))
        return backup
