"""The store's open pack: each snapshot's new objects go straight into it, trees as deltas.

A turn that changes one file adds its blob, its folder's tree, every tree above it and a commit.
Written loose, each tree costs its whole listing (kilobytes of ids that do not compress) and each
object a file; packed later, the same trees cost tens of bytes as deltas of their previous versions.
git would need a ``gc`` for that; here every snapshot rewrites one small pack (the *open* pack,
named in ``arbor-open-pack``) with its new records appended: a tree whose folder's previous version
is in it becomes a delta of that version, so the store grows by about the changed bytes at once.
The rewrite copies the old records as they are (no decompression) and costs a memory copy and a
SHA-1 of at most :data:`OPEN_MAX` bytes.

When the open pack would pass :data:`OPEN_MAX`, its blobs move out to a pack of their own (closed:
never rewritten) and its trees and commits stay, so later trees still find their bases; once these
alone pass three quarters of it, they close too and the next open pack starts afresh (each folder's
next tree is then stored whole once: a pack must hold its deltas' bases, for git to read it). Closed
packs are merged by the store when there are many (:meth:`Workspace._merge_small_packs`).

Every pack is written whole and renamed into place before the marker moves to it and the old one is
removed, so a killed process leaves either the old open pack or the new one (and at worst a copy of
the old records in a pack nobody names: harmless duplicates that a merge drops). Another process
appending at the same time does the same: whatever a writer removes, the pack it wrote holds.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .packfiles import BLOB, Record, delta_record, read_pack, replace_whole, whole_record, write_pack
from .packing import MAX_CHAIN, create_delta, line_delta

__all__ = ["OpenPack", "NewObject", "OPEN_MAX", "MARKER"]

#: The open pack's size (bytes) past which its blobs move out to a closed pack. Every snapshot that
#: adds objects writes the open pack anew: this bounds the bytes written per snapshot (~5 ms at 1 MB).
OPEN_MAX = 1024 * 1024
MARKER = "arbor-open-pack"


@dataclass(frozen=True)
class NewObject:
    kind: int
    sha: bytes
    raw: bytes
    base: tuple[bytes, bytes] | None = None
    """The previous version of this folder's tree or this file (id, content): the delta's base if the
    open pack holds it."""


@dataclass(frozen=True)
class Written:
    name: str
    """The open pack now."""
    replaced: str | None
    """The open pack before (to remove once the new one is in place), if any."""
    closed: tuple[str, ...]
    """Packs closed by this write."""


class OpenPack:
    """The open pack of one store (not thread-safe: the store's lock guards it)."""

    def __init__(self, store_path: Path) -> None:
        self.pack_dir = store_path / "objects" / "pack"
        self._marker = store_path / MARKER
        self._name: str | None = None
        self._records: list[Record] = []
        self._ids: set[bytes] = set()

    def name(self) -> str | None:
        """The open pack named on disk (another process may have moved it on)."""
        try:
            name = self._marker.read_text().strip()
        except OSError:
            return None
        return name if name.startswith("pack-") and "/" not in name and os.sep not in name else None

    def _load(self) -> None:
        name = self.name()
        if name is not None and name == self._name:
            return  # the records held in memory are the pack's (it is never rewritten in place)
        records = read_pack(self.pack_dir, name) if name is not None else None
        self._name, self._records = (name, records) if records is not None else (None, [])
        self._ids = {r.sha for r in self._records}

    def holds(self, sha: bytes) -> bool:
        """Is this object in the open pack (so a new version can be a delta of it)?"""
        self._load()
        return sha in self._ids

    def add(self, objects: list[NewObject]) -> Written:
        """Write a new open pack: the open pack's records, then ``objects`` (trees as deltas where
        their base is in it). Raises ``OSError`` if the store cannot be written; then nothing changed
        but stray files."""
        self._load()
        kept = self._records
        closed: list[str] = []
        incoming = sum(len(obj.raw) for obj in objects)
        if kept and sum(len(r.data) for r in kept) + incoming > OPEN_MAX:
            blobs = [r for r in kept if r.kind == BLOB]
            kept = [r for r in kept if r.kind != BLOB]
            if blobs:
                closed.append(write_pack(self.pack_dir, blobs))
            if sum(len(r.data) for r in kept) > OPEN_MAX * 3 // 4:
                closed.append(write_pack(self.pack_dir, kept))
                kept = []
        by_sha = {r.sha: r for r in kept}
        added: list[Record] = []
        for obj in objects:
            if obj.sha in by_sha:
                continue
            record = whole_record(obj.kind, obj.sha, obj.raw)
            base = by_sha.get(obj.base[0]) if obj.base is not None else None
            if obj.base is not None and base is not None and base.depth < MAX_CHAIN:
                delta = (line_delta if obj.kind == BLOB else create_delta)(obj.base[1], obj.raw)
                as_delta = delta_record(obj.kind, obj.sha, base, delta)
                if len(as_delta.data) < len(record.data):
                    record = as_delta
            by_sha[obj.sha] = record
            added.append(record)
        records = kept + added
        name = write_pack(self.pack_dir, records)
        self._point_to(name)
        replaced = self._name if self._name != name else None
        self._name, self._records, self._ids = name, records, set(by_sha)
        return Written(name, replaced, tuple(closed))

    def _point_to(self, name: str) -> None:
        replace_whole(self._marker, lambda handle: handle.write(f"{name}\n".encode()))
