"""git deltas found cheaply: a new version of a folder's tree or of a file, stored as a delta.

Every snapshot that changes one file writes that folder's tree and every tree above it anew: a
100-entry tree is ~5 KB of mostly incompressible ids, several times the changed file itself. Git
stores such versions as deltas of each other (``git gc``); dulwich can too, but its delta search
compares every object with a window of others (seconds for a few hundred trees). A new version of a
tree differs from the previous one in a few entries, so a delta of one common prefix and suffix
("copy, insert, copy": :func:`create_delta`) is found with a few memory compares and is as small as
git's for this case. A new version of a file differs in a few lines, maybe far apart:
:func:`line_delta` also copies the lines both versions share between its prefix and suffix.

:mod:`.openpack` uses both as each snapshot is written; :func:`tree_records` re-encodes the trees
of closed packs when they are merged (the closest of the last 10 trees with the same hint, git's
window, is the base), so the whole trees each pack had to hold become deltas across packs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from difflib import SequenceMatcher

from dulwich.objects import ShaFile, Tree

from .packfiles import TREE, Record, delta_record, whole_record

__all__ = ["create_delta", "line_delta", "tree_records", "tree_hint", "MAX_CHAIN", "WINDOW", "LINES_MAX"]

#: Deltas of deltas stop here: reading a version costs at most this many steps.
MAX_CHAIN = 50  # git's default --depth
#: How many earlier trees with the same hint are tried as the base (git's default --window).
WINDOW = 10
_COPY_MAX = 0xFFFF
#: Changed lines past which a file's delta is only its common prefix and suffix (bounds the matching).
LINES_MAX = 2000


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


def _common_prefix(a: bytes, b: bytes) -> int:
    """Length of the common prefix, by halving (slice compares run in C; a byte loop would not)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def _common_suffix(a: bytes, b: bytes, limit: int) -> int:
    low, high = 0, limit
    while low < high:
        mid = (low + high + 1) // 2
        if a[len(a) - mid:] == b[len(b) - mid:]:
            low = mid
        else:
            high = mid - 1
    return low


def create_delta(base: bytes, target: bytes) -> bytes:
    """A git delta turning ``base`` into ``target``: copy the common prefix, insert the middle, copy the suffix."""
    prefix = _common_prefix(base, target)
    suffix = _common_suffix(base, target, min(len(base), len(target)) - prefix)
    parts = [_varint(len(base)), _varint(len(target))]
    parts.extend(_copies(0, prefix))
    parts.extend(_inserts(target[prefix:len(target) - suffix]))
    parts.extend(_copies(len(base) - suffix, suffix))
    return b"".join(parts)


def line_delta(base: bytes, target: bytes) -> bytes:
    """A git delta of a new version of a file: the common prefix and suffix copied and, between them,
    the lines both versions hold copied too (difflib's matching, popular lines left out as junk), so
    an edit of three lines far apart costs those lines, not everything between them."""
    prefix = _common_prefix(base, target)
    suffix = _common_suffix(base, target, min(len(base), len(target)) - prefix)
    old = base[prefix:len(base) - suffix].splitlines(keepends=True)
    new = target[prefix:len(target) - suffix].splitlines(keepends=True)
    if len(old) > LINES_MAX or len(new) > LINES_MAX:
        return create_delta(base, target)
    starts = [prefix]
    for line in old:
        starts.append(starts[-1] + len(line))
    parts = [_varint(len(base)), _varint(len(target))]
    parts.extend(_copies(0, prefix))
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, old, new).get_opcodes():
        if tag == "equal":
            parts.extend(_copies(starts[i1], starts[i2] - starts[i1]))
        elif tag != "delete":
            parts.extend(_inserts(b"".join(new[j1:j2])))
    parts.extend(_copies(len(base) - suffix, suffix))
    return b"".join(parts)


def tree_hint(obj: ShaFile) -> bytes:
    """A tree's likely folder when its path is not known (objects from older packs): the names it
    lists. Versions of a folder's tree list the same names until a file is added or removed."""
    if not isinstance(obj, Tree):
        return b""
    return b"names:" + hashlib.sha1(b"\0".join(entry.path for entry in obj.iteritems())).digest()


def tree_records(trees: list[tuple[bytes, bytes, bytes]]) -> Iterator[Record]:
    """Pack records for trees given as ``(id, content, hint)`` (hint: the folder's path, or
    :func:`tree_hint`), in order: each a delta of the closest of the last :data:`WINDOW` trees with
    its hint (when that is less than half its size), else whole."""
    previous: dict[bytes, list[tuple[bytes, Record]]] = {}  # hint → recent (content, record)
    for sha, raw, hint in trees:
        recent = previous.setdefault(hint, []) if hint else []
        best: tuple[bytes, Record] | None = None
        for base_raw, base in recent:
            if base.depth < MAX_CHAIN:
                delta = create_delta(base_raw, raw)
                if len(delta) < len(raw) // 2 and (best is None or len(delta) < len(best[0])):
                    best = (delta, base)
                    if len(delta) < len(raw) // 16:
                        break  # the previous version, usually: a few entries changed, none will do much better
        record = delta_record(TREE, sha, best[1], best[0]) if best is not None else whole_record(TREE, sha, raw)
        if hint:
            recent.insert(0, (raw, record))
            del recent[WINDOW:]
        yield record
