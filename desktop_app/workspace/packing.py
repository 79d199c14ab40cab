"""Packing a store's loose objects, each new version of a folder's tree stored as a git delta.

Every snapshot that changes one file writes that folder's tree and every tree above it anew: a
100-entry tree is ~5 KB of mostly incompressible ids, several times the changed file itself. Git
packs such versions as deltas of each other (``git gc``); dulwich can too, but its delta search
compares every object with a window of others (seconds for a few hundred trees). A new version of a
tree differs from the previous one in a few entries, so a delta of one common prefix and suffix
("copy, insert, copy") is found in one pass and is as small as git's for this case. Blobs and
commits go in whole (zlib-compressed), as in a loose object.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

from dulwich.objects import ShaFile, Tree
from dulwich.pack import REF_DELTA, UnpackedObject

__all__ = ["create_delta", "pack_records", "tree_hint", "MAX_CHAIN"]

#: Deltas of deltas stop here: reading a version costs at most this many steps.
MAX_CHAIN = 50  # git's default --depth
_COPY_MAX = 0xFFFF


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _copy(offset: int, size: int) -> bytes:
    """One copy instruction: ``size`` bytes from ``offset`` of the base (git's pack delta format)."""
    op = 0x80
    args = bytearray()
    for i in range(4):
        byte = (offset >> (8 * i)) & 0xFF
        if byte:
            op |= 1 << i
            args.append(byte)
    for i in range(2):
        byte = (size >> (8 * i)) & 0xFF
        if byte:
            op |= 0x10 << i
            args.append(byte)
    return bytes([op]) + bytes(args)


def _copies(offset: int, size: int) -> Iterator[bytes]:
    while size > 0:
        step = min(size, _COPY_MAX)
        yield _copy(offset, step)
        offset += step
        size -= step


def _inserts(data: bytes) -> Iterator[bytes]:
    for start in range(0, len(data), 127):
        piece = data[start:start + 127]
        yield bytes([len(piece)]) + piece


def create_delta(base: bytes, target: bytes) -> bytes:
    """A git delta turning ``base`` into ``target``: copy the common prefix, insert the middle, copy the suffix."""
    limit = min(len(base), len(target))
    prefix = 0
    while prefix < limit and base[prefix] == target[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and base[-1 - suffix] == target[-1 - suffix]:
        suffix += 1
    parts = [_varint(len(base)), _varint(len(target))]
    parts.extend(_copies(0, prefix))
    parts.extend(_inserts(target[prefix:len(target) - suffix]))
    parts.extend(_copies(len(base) - suffix, suffix))
    return b"".join(parts)


def tree_hint(obj: ShaFile) -> bytes:
    """A tree's likely folder when its path is not known (objects from older packs): the names it
    lists. Versions of a folder's tree list the same names until a file is added or removed."""
    if not isinstance(obj, Tree):
        return b""
    return b"names:" + hashlib.sha1(b"\0".join(entry.path for entry in obj.iteritems())).digest()


def pack_records(objects: list[tuple[ShaFile, bytes]]) -> Iterator[UnpackedObject]:
    """Pack records for ``(object, hint)`` pairs (hint: the folder's path, or :func:`tree_hint`), in
    order: each tree a delta of the previous one with its hint (when that is smaller), all else whole."""
    previous: dict[bytes, tuple[bytes, bytes, int]] = {}  # path → (raw, binary sha, chain depth)
    for obj, path in objects:
        raw = obj.as_raw_string()
        sha = obj.sha().digest()
        base = previous.get(path) if isinstance(obj, Tree) and path else None
        if base is not None and base[2] < MAX_CHAIN:
            delta = create_delta(base[0], raw)
            if len(delta) < len(raw) // 2:
                previous[path] = (raw, sha, base[2] + 1)
                yield UnpackedObject(REF_DELTA, sha=sha, delta_base=base[1], decomp_len=len(delta), decomp_chunks=[delta])
                continue
        if isinstance(obj, Tree) and path:
            previous[path] = (raw, sha, 0)
        yield UnpackedObject(obj.type_num, sha=sha, decomp_len=len(raw), decomp_chunks=[raw])
