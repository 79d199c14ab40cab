"""A working folder's checkpoint store: a bare git repository (dulwich) in Arbor's data dir.

Why dulwich: it is pure Python with optional C speed-ups, so the PyInstaller bundle works on a
machine without ``git`` installed and no subprocess is spawned per snapshot; the store it writes is
a real git repository (``git --git-dir=STORE log refs/heads/checkpoints`` reads it).

A snapshot is a git commit of the folder's tree (see :mod:`.scan` for what is included). Only
changed files cost anything: a stat cache (mtime, ctime, size, inode, mode → blob id) spares
reading files git already holds, and blobs and trees already in the store are not written again.
A file modified (or its inode changed: ctime) within :data:`RACY_NS` of a snapshot is not cached
(git's "racily clean" rule: a second change in the same clock tick would leave its stat unchanged).
The cache is written to the store only when a file becomes trusted, not on every snapshot: a row
left for a file changed or removed since can never match again (its ctime moved on).

Nothing is written loose: a snapshot's new objects go into the store's open pack at once (a folder's
new tree and a file's new version as deltas of their previous ones: :mod:`.openpack`), so the store
grows by about the changed bytes after every snapshot, not only after a ``git gc``; a first snapshot's
files go into a pack of their own. Every write is a new file renamed into place (crash-safe), and the
store stays a repository ``git`` reads (``git fsck`` finds nothing to say).
"""

from __future__ import annotations

import atexit
import contextlib
import difflib
import hashlib
import os
import stat
import threading
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import orjson
from dulwich.objects import Blob, Commit, ObjectID, ShaFile, Tree
from dulwich.refs import Ref
from dulwich.repo import Repo

from .changes import ChangeKind, FileChange, SkippedFile, is_binary, line_counts
from .openpack import NewObject, OpenPack
from .packfiles import (
    BLOB,
    COMMIT,
    TREE,
    Record,
    contents,
    read_pack,
    remove_stray_files,
    whole_record,
    write_pack,
)
from .packing import tree_hint, tree_records
from .paths import store_dir_for
from .scan import TooManyFiles, scan_folder

__all__ = [
    "Workspace", "Snapshot", "RestoreResult", "WorkspaceError", "RestoreFailed",
    "DEFAULT_SIZE_LIMIT", "RACY_NS",
]

DEFAULT_SIZE_LIMIT = 10 * 1024 * 1024
#: A folder with more files to track than this is not snapshotted (a home folder, a disk root).
MAX_FILES = 200_000
RACY_NS = 2_000_000_000
#: Packs (besides the largest and the open one) merged into one with cross-pack tree deltas once there are more.
MERGE_PACKS = 4
#: A snapshot's new blobs go into a pack of their own past this many bytes (a first snapshot), not
#: into the open pack that every later snapshot rewrites (see :mod:`.openpack`).
OWN_PACK_BYTES = 1024 * 1024
_REF = Ref(b"refs/heads/checkpoints")
_KNOWN = Ref(b"refs/heads/known")
_CACHE_FILE = "arbor-stat-cache.json"
_IDENTITY = b"Arbor <arbor@localhost>"
_TREE_MODE = 0o040000
_LINK_MODE = 0o120000
_EXEC_MODE = 0o100755
_FILE_MODE = 0o100644

# path -> (git mode, blob sha hex)
Flat = dict[str, tuple[int, str]]


class WorkspaceError(Exception):
    """A snapshot or a query could not be done; ``str()`` says why in plain words."""


class RestoreFailed(WorkspaceError):
    """A restore stopped part-way; ``rolled_back`` says whether the folder was put back as it was."""

    def __init__(self, message: str, *, rolled_back: bool, undo: str) -> None:
        super().__init__(message)
        self.rolled_back = rolled_back
        self.undo = undo


@dataclass(frozen=True)
class Snapshot:
    id: str
    """The snapshot id: a git commit sha (hex) in the folder's store."""
    tree: str
    """The folder's tree id: equal trees mean equal folders."""
    skipped: tuple[SkippedFile, ...] = ()
    files: int = 0


@dataclass(frozen=True)
class RestoreResult:
    undo: str
    """The snapshot of the folder taken just before the restore: restoring to it undoes the restore."""
    changes: list[FileChange]
    hand_edited: list[str] = field(default_factory=list)
    """Files the restore overwrote that had changed since ``expected`` (changed by hand)."""


def _tree_paths(objects: list[ShaFile]) -> dict[bytes, bytes]:
    """Tree id → its folder's path, for the trees among ``objects`` reachable from the commits among
    them (each snapshot's new trees hang from its commit; unchanged folders' trees are elsewhere)."""
    trees = {obj.id: obj for obj in objects if isinstance(obj, Tree)}
    paths: dict[bytes, bytes] = {}
    todo = [(obj.tree, b"/") for obj in objects if isinstance(obj, Commit)]
    while todo:
        sha, path = todo.pop()
        tree = trees.get(sha)
        if tree is None or sha in paths:
            continue
        paths[sha] = path
        todo.extend((entry.sha, path + entry.path + b"/") for entry in tree.iteritems() if entry.mode == _TREE_MODE)
    return paths


def _geometric(packs: list[tuple[str, int]]) -> list[str]:
    """The packs a merge takes (``git repack --geometric=2``'s rule): from the smallest up, every pack
    not at least twice the size of all smaller ones together; the larger ones are left alone, so a
    merge rereads about as much as it adds, not the whole history each time."""
    ordered = sorted(packs, key=lambda pack: pack[1])
    cut, total = 0, 0
    for index, (_, size) in enumerate(ordered):
        if index and size < 2 * total:
            cut = index + 1
        total += size
    return [name for name, _ in ordered[:cut]]


def clock_ns() -> int:
    """Now, for the racy-file rule (a seam: tests move it forward instead of waiting)."""
    return time.time_ns()


def _blob_sha(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


_StatKey = tuple[int, int, int, int, int]
_TreeItem = tuple[bytes, bytes, int, bytes]  # sort key (a folder's name + "/"), name, git mode, binary id
_Cached = tuple[_StatKey, str, bytes]  # stat key, blob id (hex), blob id (bytes)


class _Pending:
    """New objects of one snapshot, written together at its end (:meth:`Workspace._store`); blobs
    past 64 MB are written as a pack of their own at once, to bound memory (a first snapshot)."""

    BYTES_MAX = 64 * 1024 * 1024

    def __init__(self, pack_dir: Path) -> None:
        self._pack_dir = pack_dir
        self.blobs: list[NewObject] = []
        self.others: list[NewObject] = []
        self.blob_bytes = 0
        self.written: list[str] = []

    def add(self, obj: NewObject) -> None:
        if obj.kind != BLOB:
            self.others.append(obj)
            return
        self.blobs.append(obj)
        self.blob_bytes += len(obj.raw)
        if self.blob_bytes > self.BYTES_MAX:
            self.write_blobs()

    def write_blobs(self) -> None:
        if self.blobs:
            self.written.append(write_pack(self._pack_dir, [whole_record(BLOB, b.sha, b.raw) for b in self.blobs]))
        self.blobs, self.blob_bytes = [], 0


class Workspace:
    """The checkpoint store of one working folder. Thread-safe; use :meth:`open` to share one per folder."""

    _open: dict[str, Workspace] = {}
    _open_lock = threading.Lock()

    def __init__(self, folder: str, store: Path, size_limit: int = DEFAULT_SIZE_LIMIT) -> None:
        self.folder = os.path.abspath(folder)
        self.store_path = store
        self.size_limit = size_limit
        self.max_files = MAX_FILES
        self._lock = threading.RLock()
        self._repo: Repo | None = None
        self._cache: dict[str, _Cached] | None = None
        self._known: set[str] = set()
        self._last_blob: dict[str, str] = {}  # path → the blob id this process last stored for it
        self._open_pack = OpenPack(store)
        self._tidied = False  # loose objects (older stores) and stray files looked for
        self._trees: dict[str, tuple[list[_TreeItem], str, bytes]] = {}  # folder → last listing, tree id, tree
        self._flat_cache: dict[str, Flat] = {}

    @classmethod
    def open(cls, folder: str, *, size_limit: int = DEFAULT_SIZE_LIMIT, root: Path | None = None) -> Workspace:
        """The store for ``folder`` (created on first snapshot), shared within the process: one
        writer per store (a changed size limit applies to the shared one from its next snapshot)."""
        store = store_dir_for(folder, root)
        with cls._open_lock:
            found = cls._open.get(str(store))
            if found is None:
                found = cls._open[str(store)] = cls(folder, store, size_limit)
            found.size_limit = size_limit
            return found

    # ----------------------------------------------------------------------------- the store

    def _repository(self, create: bool) -> Repo | None:
        if self._repo is None:
            if (self.store_path / "objects").is_dir():
                self._repo = Repo(str(self.store_path))
            elif create:
                self.store_path.mkdir(parents=True, exist_ok=True)
                self._repo = Repo.init_bare(str(self.store_path))
                (self.store_path / "description").write_text(f"Arbor checkpoints of {self.folder}\n")
        return self._repo

    def _stat_cache(self) -> dict[str, _Cached]:
        """path → (stat key, blob id), kept in memory and in the store (a new process starts warm)."""
        if self._cache is None:
            self._cache = {}
            try:
                loaded = orjson.loads((self.store_path / _CACHE_FILE).read_bytes())
            except (OSError, orjson.JSONDecodeError):
                loaded = {}
            for path, row in (loaded.items() if isinstance(loaded, dict) else ()):
                try:
                    self._cache[path] = ((row[0], row[1], row[2], row[3], row[4]), row[5], bytes.fromhex(row[5]))
                except (TypeError, ValueError, IndexError, KeyError):
                    continue  # a damaged row: that file is simply read again
        return self._cache

    def _save_cache(self) -> None:
        path = self.store_path / _CACHE_FILE
        temp = path.with_suffix(".tmp")
        rows = {rel: [*key, sha] for rel, (key, sha, _) in (self._cache or {}).items()}
        temp.write_bytes(orjson.dumps(rows))
        os.replace(temp, path)

    def has(self, snapshot_id: str) -> bool:
        repo = self._repository(create=False)
        try:
            return repo is not None and isinstance(repo.object_store[ObjectID(snapshot_id.encode())], Commit)
        except (KeyError, ValueError, AssertionError):
            return False

    # ----------------------------------------------------------------------------- snapshot

    def snapshot(self) -> Snapshot:
        """Record the folder as it is now. Raises :class:`WorkspaceError` (folder gone, a file that
        cannot be read, a store that cannot be written): a snapshot is whole or not at all."""
        with self._lock:
            try:
                return self._snapshot()
            except WorkspaceError:
                self._forget()
                raise
            except OSError as exc:
                self._forget()
                raise WorkspaceError(self._os_words(exc)) from exc

    def _forget(self) -> None:
        """After a failed snapshot: what this process believed written may not be (checked again)."""
        self._known.clear()
        self._trees.clear()
        self._last_blob.clear()
        self._cache = None

    def _os_words(self, exc: OSError) -> str:
        where = exc.filename if isinstance(exc.filename, str) else ""
        if where and where.startswith(str(self.store_path)):
            return f"the checkpoint store could not be written ({exc.strerror or exc})"
        if where.startswith(self.folder) and where != self.folder:
            return f"{os.path.relpath(where, self.folder)} could not be read ({exc.strerror or exc})"
        return f"{where or self.folder}: {exc.strerror or exc}"

    def _snapshot(self) -> Snapshot:
        if not os.path.isdir(self.folder):
            raise WorkspaceError(f"the working folder {self.folder} is gone")
        start = clock_ns()
        try:
            files = scan_folder(self.folder, self.max_files)
        except TooManyFiles as exc:
            raise WorkspaceError(f"the working folder holds more than {exc.args[0]:,} files outside .gitignore: "
                                 "too many to checkpoint (add the generated ones to .gitignore)") from exc
        repo = self._repository(create=True)
        assert repo is not None
        cache = self._stat_cache()
        size_limit = self.size_limit  # once: another caller may open the store with another limit meanwhile
        seen: dict[str, _Cached] = {}
        entries: dict[str, list[_TreeItem]] = {"": []}
        skipped: list[SkippedFile] = []
        pending = _Pending(self.store_path / "objects" / "pack")
        cache_changed = False
        racy_after = start - RACY_NS
        for directory, name, path, info in files:
            rel = f"{directory}/{name}" if directory else name
            st_mode = info.st_mode
            mode = _LINK_MODE if stat.S_ISLNK(st_mode) else _EXEC_MODE if st_mode & 0o111 else _FILE_MODE
            if mode != _LINK_MODE and info.st_size > size_limit:
                skipped.append(SkippedFile(rel, info.st_size))
                continue
            key = (info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino, mode)
            known = cache.get(rel)
            if known is not None and known[0] == key:
                binsha = known[2]
                seen[rel] = known
            else:
                sha = self._hash_file(rel, path, mode, pending)
                binsha = bytes.fromhex(sha)
                if info.st_mtime_ns < racy_after and info.st_ctime_ns < racy_after:
                    seen[rel] = (key, sha, binsha)
                    cache_changed = True
            listing = entries.get(directory)
            if listing is None:
                listing = entries[directory] = []
            name_bytes = name.encode("utf-8", "surrogateescape")
            listing.append((name_bytes, name_bytes, mode, binsha))
        skipped.sort(key=lambda s: s.path)
        tree = self._write_trees(repo, entries, pending)
        commit, new_commit = self._commit(repo, tree, pending)
        self._store(repo, pending)
        if new_commit:  # only once the commit is in the store
            repo.refs[_REF] = ObjectID(commit.encode())
        self._cache = seen
        if cache_changed:  # a file newly trusted; a file gone or changed only leaves a stale row, never matched
            self._save_cache()  # after the objects it names are in the store
        return Snapshot(commit, tree, tuple(skipped), len(files) - len(skipped))

    def _store(self, repo: Repo, pending: _Pending) -> None:
        """Write a snapshot's new objects: many blobs (a first snapshot) as a pack of their own, the
        rest into the open pack (trees and files as deltas of their previous versions: :mod:`.openpack`),
        and merge the closed packs when a pack was closed or added."""
        if not self._tidied:
            self._tidied = True
            remove_stray_files(self._open_pack.pack_dir)
            loose = self._loose_objects(repo)
        else:
            loose = []
        if pending.blob_bytes > OWN_PACK_BYTES:
            pending.write_blobs()
        objects = pending.blobs + pending.others
        new = {obj.sha for obj in objects}
        objects += [obj for obj in loose if obj.sha not in new]
        closed = bool(pending.written)
        if objects:
            written = self._open_pack.add(objects)
            closed = closed or bool(written.closed)
            self._refresh_packs(repo)
            if written.replaced is not None:
                self._drop_pack(repo, written.replaced)
        elif closed:
            self._refresh_packs(repo)
        if closed:
            self._merge_small_packs(repo)
        for obj in loose:
            repo.object_store.delete_loose_object(ObjectID(obj.sha.hex().encode()))

    def _loose_objects(self, repo: Repo) -> list[NewObject]:
        """Loose objects (a store written by an older Arbor, or by git): they join the open pack."""
        objects_dir = self.store_path / "objects"
        found: list[NewObject] = []
        for sub in sorted(objects_dir.iterdir()):
            if len(sub.name) != 2 or not sub.is_dir():
                continue
            for entry in sorted(sub.iterdir()):
                if len(entry.name) != 38:
                    continue
                obj = repo.object_store[ObjectID((sub.name + entry.name).encode())]
                found.append(NewObject(obj.type_num, obj.sha().digest(), obj.as_raw_string()))
        return found

    def _refresh_packs(self, repo: Repo) -> None:
        repo.object_store._update_pack_cache()  # dulwich's own rescan (1.2.21, pinned)

    def _drop_pack(self, repo: Repo, name: str) -> None:
        """Remove a pack whose objects another pack now holds (its index first: never an index
        without its pack). Another process still reading it keeps its open copy (POSIX)."""
        store = repo.object_store
        pack = store._pack_cache.pop(name, None)  # dulwich's cache of open packs (1.2.21, pinned)
        if pack is not None:
            with contextlib.suppress(ValueError):
                store._pack_access_order.remove(name)
            pack.close()
        for suffix in (".idx", ".pack"):
            try:
                os.unlink(self.store_path / "objects" / "pack" / f"{name}{suffix}")
            except OSError:
                pass  # gone already (another process), or still open (Windows): a duplicate, merged later

    def pack(self) -> None:
        """Take loose objects into the open pack and merge every closed pack but the largest now
        (snapshots merge them every :data:`MERGE_PACKS`)."""
        with self._lock:
            repo = self._repository(create=False)
            if repo is not None:
                self._tidied = False
                self._store(repo, _Pending(self.store_path / "objects" / "pack"))
                self._merge_small_packs(repo, force=True)

    def close(self) -> None:
        """Let go of the store's open files (packs); the next use opens it again."""
        with self._lock:
            if self._repo is not None:
                self._repo.close()
                self._repo = None

    @classmethod
    def close_all(cls) -> None:
        with cls._open_lock:
            for workspace in cls._open.values():
                workspace.close()

    def _has(self, sha: str) -> bool:
        """Is the object in the store? (Checked once per process; loose files, then packs.)"""
        if sha in self._known:
            return True
        repo = self._repo
        assert repo is not None
        found = (self.store_path / "objects" / sha[:2] / sha[2:]).exists() or \
            repo.object_store.contains_packed(ObjectID(sha.encode()))
        if found:
            self._known.add(sha)
        return found

    def _hash_file(self, rel: str, path: str, mode: int, pending: _Pending) -> str:
        if mode == _LINK_MODE:
            data = os.fsencode(os.readlink(path))
        else:
            with open(path, "rb") as handle:
                data = handle.read()
        sha = _blob_sha(data)
        if not self._has(sha):
            pending.add(NewObject(BLOB, bytes.fromhex(sha), data, self._previous_blob(rel)))
            self._known.add(sha)
        self._last_blob[rel] = sha
        return sha

    def _previous_blob(self, rel: str) -> tuple[bytes, bytes] | None:
        """The file's previous version (id, content) if the open pack holds it: the base of the new
        version's delta (an agent edits the same few files turn after turn)."""
        row = (self._cache or {}).get(rel)
        previous = self._last_blob.get(rel) or (row[1] if row is not None else None)
        if previous is None or not self._open_pack.holds(bytes.fromhex(previous)) or self._repo is None:
            return None
        try:
            found = self._repo.object_store[ObjectID(previous.encode())]
        except KeyError:
            return None
        return (found.sha().digest(), found.as_raw_string()) if isinstance(found, Blob) else None

    def _previous_tree(self, repo: Repo, directory: str) -> tuple[bytes, bytes] | None:
        """The newest snapshot's tree of ``directory`` (id, content): the base of its new version's
        delta when this process has not seen the folder yet (its first snapshot after a hand edit)."""
        head = repo.refs.as_dict().get(_REF)
        try:
            if head is None:
                return None
            commit = repo.object_store[head]
            assert isinstance(commit, Commit)
            sha = commit.tree
            for part in directory.split("/") if directory else ():
                tree = repo.object_store[sha]
                assert isinstance(tree, Tree)
                mode, sha = tree[part.encode("utf-8", "surrogateescape")]
                if mode != _TREE_MODE:
                    return None
            found = repo.object_store[sha]
        except (KeyError, AssertionError):
            return None
        return (found.sha().digest(), found.as_raw_string()) if isinstance(found, Tree) else None

    def _write_trees(self, repo: Repo, entries: dict[str, list[_TreeItem]], pending: _Pending) -> str:
        """Write every folder's tree, deepest first; returns the root tree's id."""
        for directory in list(entries):  # make sure every parent folder has a listing
            while directory:
                directory = directory.rpartition("/")[0]
                entries.setdefault(directory, [])
        root_sha = ""
        for directory in sorted(entries, key=lambda d: (-d.count("/") if d else 1, d)):
            items = sorted(entries[directory])  # by git's order: a folder's name sorts as "name/"
            memo = self._trees.get(directory)
            if memo is not None and memo[0] == items:
                sha_hex = memo[1]
            else:
                raw = b"".join(b"%o %s\0%s" % (mode, name, sha) for _, name, mode, sha in items)
                sha_hex = hashlib.sha1(b"tree %d\0" % len(raw) + raw).hexdigest()
                if not self._has(sha_hex):
                    base = (bytes.fromhex(memo[1]), memo[2]) if memo is not None else self._previous_tree(repo, directory)
                    pending.add(NewObject(TREE, bytes.fromhex(sha_hex), raw, base))
                    self._known.add(sha_hex)
                self._trees[directory] = (items, sha_hex, raw)
            if directory:
                parent, _, name = directory.rpartition("/")
                name_bytes = name.encode("utf-8", "surrogateescape")
                entries[parent].append((name_bytes + b"/", name_bytes, _TREE_MODE, bytes.fromhex(sha_hex)))
            else:
                root_sha = sha_hex
        return root_sha

    def _commit(self, repo: Repo, tree: str, pending: _Pending) -> tuple[str, bool]:
        """The snapshot id: the newest commit if it holds this tree, else a new commit on top of it
        (added to ``pending``; the caller moves the ref once it is written)."""
        head = repo.refs.as_dict().get(_REF)
        if head is not None:
            parent = repo.object_store[head]
            if isinstance(parent, Commit) and parent.tree.decode() == tree:
                return str(head.decode()), False
        commit = Commit()
        commit.tree = ObjectID(tree.encode())
        commit.parents = [head] if head is not None else []
        commit.author = commit.committer = _IDENTITY
        commit.author_time = commit.commit_time = int(time.time())
        commit.author_timezone = commit.commit_timezone = 0
        commit.message = b"Arbor checkpoint\n"
        pending.add(NewObject(COMMIT, commit.sha().digest(), commit.as_raw_string()))
        return str(commit.id.decode()), True

    def _merge_small_packs(self, repo: Repo, force: bool = False) -> None:
        """Once there are more than :data:`MERGE_PACKS` closed packs besides the largest (the first
        snapshot's), merge the small ones into one (:func:`_geometric`; ``force``: all of them; a step of
        git's ``gc``; the largest and the open pack are left alone). Files and commits are copied as stored (no decompression: a merge costs a copy,
        not a repack); trees are read and stored again as deltas across all of them, so the whole
        trees each pack had to hold (a pack holds its deltas' bases) become deltas too."""
        store = repo.object_store
        open_pack = self._open_pack.name()
        packs = [pack for pack in store.packs if os.path.basename(pack._basename) != open_pack]
        if len(packs) <= (1 if force else MERGE_PACKS) + 1:
            return
        largest = max(packs, key=len)
        small = [os.path.basename(pack._basename) for pack in packs if pack is not largest]
        if not force:
            small = _geometric([(name, (self._open_pack.pack_dir / f"{name}.pack").stat().st_size) for name in small])
            if len(small) < 2:
                return
        kept: dict[bytes, Record] = {}
        trees: dict[bytes, bytes] = {}  # id → content, in the order written (each pack's)
        commits: dict[bytes, bytes] = {}
        for name in small:
            records = read_pack(self._open_pack.pack_dir, name)
            if records is None:  # not written here (an older Arbor's, or git's): decoded
                pack = store._pack_cache[name]
                records = [whole_record(obj.type_num, obj.sha().digest(), obj.as_raw_string())
                           for obj in pack.iterobjects()]
            try:
                trees.update(contents(records, frozenset({TREE})))
            except (KeyError, zlib.error):  # a base before its delta is how packs are written here; else read each
                trees.update((r.sha, repo.object_store[ObjectID(r.sha.hex().encode())].as_raw_string())
                             for r in records if r.kind == TREE)
            commits.update(contents([r for r in records if r.kind == COMMIT and r.base is None], frozenset({COMMIT})))
            for record in records:
                if record.kind != TREE and (record.sha not in kept or record.base is None):
                    kept[record.sha] = record  # a killed writer's copies: once, whole first
        self._settle(repo, kept)
        tree_objects = {sha: ShaFile.from_raw_string(TREE, raw, sha=ObjectID(sha.hex().encode()))
                        for sha, raw in trees.items()}
        paths = _tree_paths([*tree_objects.values(), *(ShaFile.from_raw_string(COMMIT, raw) for raw in commits.values())])
        # stable: a folder's versions stay in the order written, each next to the one before
        hinted = sorted(((paths.get(obj.id) or tree_hint(obj), sha, trees[sha]) for sha, obj in tree_objects.items()),
                        key=lambda row: row[0])
        merged = [*kept.values(), *tree_records([(sha, raw, hint) for hint, sha, raw in hinted])]
        written = write_pack(self._open_pack.pack_dir, merged)
        self._refresh_packs(repo)
        for name in small:
            if name != written:  # the merge of a pack and its copy is that pack: it stays
                self._drop_pack(repo, name)

    @staticmethod
    def _settle(repo: Repo, kept: dict[bytes, Record]) -> None:
        """Store whole any kept delta whose chain does not end in a kept object (duplicates left by
        killed writers could otherwise pair up into a cycle or point outside the merged pack)."""
        for sha in list(kept):
            seen: set[bytes] = set()
            current: bytes | None = sha
            while current is not None and current in kept and current not in seen:
                seen.add(current)
                current = kept[current].base
            if current is not None:  # a base missing, or a cycle
                obj = repo.object_store[ObjectID(sha.hex().encode())]
                kept[sha] = whole_record(obj.type_num, sha, obj.as_raw_string())

    def known(self) -> str | None:
        """The folder as Arbor last saw or made it (a checkpoint taken, a restore done): what the
        folder is expected to hold, so anything else in it was changed by hand."""
        repo = self._repository(create=False)
        if repo is None:
            return None
        found = repo.refs.as_dict().get(_KNOWN)
        return str(found.decode()) if found is not None and self.has(found.decode()) else None

    def mark_known(self, snapshot_id: str) -> None:
        repo = self._repository(create=True)
        assert repo is not None
        repo.refs[_KNOWN] = ObjectID(snapshot_id.encode())

    # ----------------------------------------------------------------------------- reading

    def _require(self) -> Repo:
        repo = self._repository(create=False)
        if repo is None:
            raise WorkspaceError(f"no checkpoints were ever taken of {self.folder}")
        return repo

    def tree_of(self, snapshot_id: str) -> str:
        repo = self._require()
        try:
            commit = repo.object_store[ObjectID(snapshot_id.encode())]
        except (KeyError, ValueError, AssertionError):
            commit = None
        if not isinstance(commit, Commit):
            raise WorkspaceError(f"checkpoint {snapshot_id[:12]} is not in the store of {self.folder}")
        return str(commit.tree.decode())

    def files(self, snapshot_id: str) -> Flat:
        """Every file of a snapshot: path → (git mode, blob id)."""
        with self._lock:
            tree = self.tree_of(snapshot_id)
            flat = self._flat_cache.get(tree)
            if flat is None:
                repo = self._require()
                flat = {
                    item.path.decode("utf-8", "surrogateescape"): (item.mode, item.sha.decode())
                    for item in repo.object_store.iter_tree_contents(ObjectID(tree.encode()))
                    if item.path is not None and item.mode is not None and item.sha is not None
                }
                if len(self._flat_cache) > 32:
                    self._flat_cache.clear()
                self._flat_cache[tree] = flat
            return flat

    def blob(self, sha: str) -> bytes:
        obj = self._require().object_store[ObjectID(sha.encode())]
        assert isinstance(obj, Blob)
        return obj.as_raw_string()

    def compare(self, old: Flat, new: Flat) -> list[FileChange]:
        """Per-file changes from ``old`` to ``new``, sorted by path."""
        out: list[FileChange] = []
        for path in sorted(old.keys() | new.keys()):
            before, after = old.get(path), new.get(path)
            if before == after:
                continue
            old_data = self.blob(before[1]) if before is not None else b""
            new_data = self.blob(after[1]) if after is not None else b""
            kind = ChangeKind.ADDED if before is None else ChangeKind.DELETED if after is None else ChangeKind.MODIFIED
            if is_binary(old_data) or is_binary(new_data):
                out.append(FileChange(path, kind, binary=True))
            else:
                added, removed = line_counts(old_data, new_data)
                out.append(FileChange(path, kind, added, removed))
        return out

    def changes(self, old: str | None, new: str) -> list[FileChange]:
        """What changed from snapshot ``old`` (``None``: an empty folder) to snapshot ``new``."""
        return self.compare(self.files(old) if old is not None else {}, self.files(new))

    def diff_text(self, old: str | None, new: str, path: str | None = None) -> str:
        """A unified diff (git's ``a/`` ``b/`` headers) from ``old`` to ``new``, of one file or all."""
        before = self.files(old) if old is not None else {}
        after = self.files(new)
        return "".join(self._diff_chunks(before, after, path))

    def _diff_chunks(self, before: Flat, after: Flat, only: str | None) -> Iterator[str]:
        for change in self.compare(before, after):
            if only is not None and change.path != only:
                continue
            old = before.get(change.path)
            new = after.get(change.path)
            a = self.blob(old[1]) if old is not None else b""
            b = self.blob(new[1]) if new is not None else b""
            a_name = f"a/{change.path}" if old is not None else "/dev/null"
            b_name = f"b/{change.path}" if new is not None else "/dev/null"
            yield f"diff --git a/{change.path} b/{change.path}\n"
            if change.binary:
                yield f"Binary files {a_name} and {b_name} differ\n"
                continue
            yield from difflib.unified_diff(
                a.decode("utf-8", "replace").splitlines(keepends=True),
                b.decode("utf-8", "replace").splitlines(keepends=True), a_name, b_name, lineterm="\n")

    # ----------------------------------------------------------------------------- restore

    def plan_restore(self, target: str) -> list[FileChange]:
        """What :meth:`restore` would do to the folder as it is now (takes a snapshot of it)."""
        current = self.snapshot()
        return self.changes(current.id, target)

    def hand_edited(self, expected: str | None, current: str, changes: list[FileChange]) -> list[str]:
        """The paths in ``changes`` whose content differs from snapshot ``expected`` (changed by hand)."""
        if expected is None:
            return []
        known, now = self.files(expected), self.files(current)
        return [c.path for c in changes if known.get(c.path) != now.get(c.path)]

    def restore(self, target: str, *, expected: str | None = None) -> RestoreResult:
        """Make the folder equal to snapshot ``target`` (ignored and skipped files are left alone).

        The folder is snapshotted first (:attr:`RestoreResult.undo`). If a write fails part-way, the
        files already changed are put back and :class:`RestoreFailed` says so.
        """
        with self._lock:
            self.tree_of(target)  # a clear error before anything is touched
            pre = self.snapshot()
            current, goal = self.files(pre.id), self.files(target)
            changes = self.compare(current, goal)
            hand = self.hand_edited(expected, pre.id, changes)
            done: list[str] = []
            try:
                self._apply(changes, goal, done)
            except OSError as exc:
                self._roll_back(done, current, exc, pre.id)
            self.mark_known(target)
            return RestoreResult(pre.id, changes, hand)

    def _apply(self, changes: list[FileChange], goal: Flat, done: list[str]) -> None:
        for change in changes:  # deletions first: a file may give way to a folder of the same name
            if change.kind is ChangeKind.DELETED:
                done.append(change.path)
                self._remove(change.path)
        for change in changes:
            if change.kind is not ChangeKind.DELETED:
                done.append(change.path)
                self._write(change.path, *goal[change.path])

    def _roll_back(self, done: list[str], current: Flat, exc: OSError, undo: str) -> None:
        failed_at = done[-1] if done else "?"
        reason = exc.strerror or str(exc)
        try:
            for path in reversed(done):
                if path in current:
                    self._write(path, *current[path])
                else:
                    self._remove(path)
        except OSError as again:
            raise RestoreFailed(
                f"Restoring stopped at {failed_at} ({reason}), and putting the files back failed too "
                f"({again.strerror or again}): restore checkpoint {undo[:12]} to get the folder as it was.",
                rolled_back=False, undo=undo) from exc
        raise RestoreFailed(
            f"Restoring stopped at {failed_at} ({reason}); the files it had changed were put back as they were.",
            rolled_back=True, undo=undo) from exc

    def _remove(self, rel: str) -> None:
        path = os.path.join(self.folder, *rel.split("/"))
        if os.path.lexists(path):
            os.unlink(path)
        parent = os.path.dirname(path)
        while parent != self.folder and len(parent) > len(self.folder):
            try:
                os.rmdir(parent)  # only empty folders go; ignored files keep theirs
            except OSError:
                break
            parent = os.path.dirname(parent)

    def _write(self, rel: str, mode: int, sha: str) -> None:
        path = os.path.join(self.folder, *rel.split("/"))
        data = self.blob(sha)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if mode == _LINK_MODE:
            if os.path.lexists(path):
                os.unlink(path)
            os.symlink(os.fsdecode(data), path)
            return
        if os.path.islink(path):
            os.unlink(path)
        write_file(path, data)
        current = os.stat(path).st_mode
        want_exec = mode == _EXEC_MODE
        if bool(current & 0o111) != want_exec:
            readable = (current & 0o444) >> 2
            os.chmod(path, (current | readable) if want_exec else (current & ~0o111))


atexit.register(Workspace.close_all)  # dulwich's packs warn on stderr if left to the interpreter's exit


def write_file(path: str, data: bytes) -> None:
    """Write one restored file in place (keeps its permissions and hard links). A seam for tests."""
    with open(path, "wb") as handle:
        handle.write(data)
