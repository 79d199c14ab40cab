"""git pack files, written and read record by record: what lets a snapshot go straight into a pack.

A pack (``objects/pack/pack-<sum>.pack``) is a header, one record per object (a type-and-size
header, a delta's base id, a zlib stream) and a SHA-1 of all that; its index (``.idx``, version 2)
lists the ids in order with each record's CRC-32 and offset. Keeping a record as the bytes it is in
the pack lets a pack be rewritten with a few records more without decompressing anything: the copy
costs a memory copy and a SHA-1, not a repack.

Every pack written here is whole by itself (each delta's base is in the same pack), as git requires
of the packs it reads from disk; a pack is written to temporary files and renamed into place, the
pack before its index (an index never names a missing pack; a pack without an index is invisible to
git and dulwich alike), so a process killed mid-write leaves at most a stray temporary file.
"""

from __future__ import annotations

import hashlib
import os
import struct
import tempfile
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

__all__ = ["Record", "whole_record", "delta_record", "write_pack", "read_pack", "COMMIT", "TREE", "BLOB",
           "REF_DELTA", "remove_stray_files", "contents"]

COMMIT, TREE, BLOB = 1, 2, 3
OFS_DELTA, REF_DELTA = 6, 7
_TEMP_PREFIX = "tmp_arbor_"
#: A temporary file or a pack without an index older than this is left over from a killed writer.
_STRAY_AGE_S = 600


@dataclass(frozen=True)
class Record:
    sha: bytes
    """The object's id (binary)."""
    kind: int
    """The object's own type (COMMIT, TREE, BLOB), also for a delta."""
    data: bytes
    """The record exactly as it is in the pack: header, base id (a delta), zlib stream."""
    base: bytes | None = None
    """A delta's base id (binary), else ``None``."""
    depth: int = 0
    """How many deltas reading the object resolves."""


def _header(type_num: int, size: int) -> bytes:
    out = bytearray()
    byte = (type_num << 4) | (size & 0x0F)
    size >>= 4
    while size:
        out.append(byte | 0x80)
        byte = size & 0x7F
        size >>= 7
    out.append(byte)
    return bytes(out)


def whole_record(kind: int, sha: bytes, raw: bytes) -> Record:
    """An object stored whole: zlib of its content (the same bytes a loose object holds, less its header)."""
    return Record(sha, kind, _header(kind, len(raw)) + zlib.compress(raw), None, 0)


def delta_record(kind: int, sha: bytes, base: Record, delta: bytes) -> Record:
    """An object stored as a git delta of ``base`` (which must be in the same pack)."""
    return Record(sha, kind, _header(REF_DELTA, len(delta)) + base.sha + zlib.compress(delta), base.sha,
                  base.depth + 1)


def _index(records: list[Record], offsets: list[int], crcs: list[int], pack_sum: bytes) -> bytes:
    order = sorted(range(len(records)), key=lambda i: records[i].sha)
    fanout = [0] * 256
    for record in records:
        fanout[record.sha[0]] += 1
    total = 0
    for i in range(256):
        total += fanout[i]
        fanout[i] = total
    parts = [b"\377tOc", struct.pack(">I", 2), struct.pack(">256I", *fanout)]
    parts.extend(records[i].sha for i in order)
    parts.append(struct.pack(f">{len(order)}I", *(crcs[i] for i in order)))
    parts.append(struct.pack(f">{len(order)}I", *(offsets[i] for i in order)))
    parts.append(pack_sum)
    body = b"".join(parts)
    return body + hashlib.sha1(body).digest()


def write_pack(pack_dir: Path, records: list[Record]) -> str:
    """Write ``records`` as one pack and its index; returns the pack's name (``pack-<sum>``).

    Raises ``ValueError`` if a delta's base is not among ``records`` (git could not read it)."""
    ids = {record.sha for record in records}
    if len(ids) != len(records):
        raise ValueError("a pack lists an object twice")
    missing = [r.sha.hex() for r in records if r.base is not None and r.base not in ids]
    if missing:
        raise ValueError(f"a delta's base is not in its pack: {missing[0]}")
    offsets: list[int] = []
    crcs: list[int] = []
    offset = 12
    for record in records:
        offsets.append(offset)
        crcs.append(zlib.crc32(record.data))
        offset += len(record.data)
    if offset >= 1 << 31:
        raise ValueError("a pack this large is written by a repack, not here")
    body = b"".join([b"PACK", struct.pack(">II", 2, len(records)), *(r.data for r in records)])
    pack_sum = hashlib.sha1(body).digest()
    name = "pack-" + pack_sum.hex()
    pack_dir.mkdir(parents=True, exist_ok=True)
    _put(pack_dir / f"{name}.pack", body + pack_sum)
    _put(pack_dir / f"{name}.idx", _index(records, offsets, crcs, pack_sum))
    return name


def _put(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename: ``path`` is whole or absent."""
    if path.exists():
        return  # the same name holds the same content (named by its checksum)
    replace_whole(path, lambda handle: write_chunks(handle, data), mode=0o444)  # as git leaves its packs


def replace_whole(path: Path, fill: Callable[[BinaryIO], object], mode: int | None = None) -> None:
    """``path`` becomes what ``fill`` writes, or stays as it was: written to a temporary file beside it
    (named so the store's clean-up knows it), then renamed over it. A writer killed half-way leaves
    the old file and a stray temporary file, never a torn one."""
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=_TEMP_PREFIX)
    try:
        with os.fdopen(fd, "wb") as handle:
            fill(handle)
        if mode is not None:
            os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise


def write_chunks(handle: object, data: bytes) -> None:
    """Write a pack's bytes (a seam: a test slows it down to kill the writer half-way)."""
    handle.write(data)  # type: ignore[attr-defined]


def read_pack(pack_dir: Path, name: str) -> list[Record] | None:
    """The records of pack ``name`` in the order they are stored; ``None`` when it is missing,
    damaged or holds offset deltas (not written here: it is then treated as any other pack)."""
    try:
        index = (pack_dir / f"{name}.idx").read_bytes()
        pack = (pack_dir / f"{name}.pack").read_bytes()
    except OSError:
        return None
    if index[:8] != b"\377tOc\0\0\0\2" or pack[:8] != b"PACK\0\0\0\2" or len(index) < 8 + 1024 + 40:
        return None
    count = struct.unpack(">I", index[8 + 1020:8 + 1024])[0]
    at = 8 + 1024
    if len(index) != at + count * 28 + 40 or index[-40:-20] != pack[-20:] or struct.unpack(">I", pack[8:12])[0] != count:
        return None
    if hashlib.sha1(memoryview(pack)[:-20]).digest() != pack[-20:]:
        return None
    shas = [index[at + 20 * i:at + 20 * i + 20] for i in range(count)]
    offsets = struct.unpack(f">{count}I", index[at + 24 * count:at + 28 * count])
    if any(o & 0x80000000 for o in offsets):
        return None
    placed = sorted(zip(offsets, shas, strict=True))
    ends = [o for o, _ in placed[1:]] + [len(pack) - 20]
    parsed: list[tuple[bytes, int, bytes, bytes | None]] = []
    for (offset, sha), end in zip(placed, ends, strict=True):
        data = pack[offset:end]
        type_num = (data[0] >> 4) & 7
        pos = 1
        while data[pos - 1] & 0x80:
            pos += 1
        if type_num == OFS_DELTA:
            return None
        parsed.append((sha, type_num, data, data[pos:pos + 20] if type_num == REF_DELTA else None))
    kinds = {sha: type_num for sha, type_num, _, _ in parsed if type_num != REF_DELTA}
    bases = {sha: base for sha, _, _, base in parsed if base is not None}
    resolved: dict[bytes, tuple[int, int]] = {sha: (kind, 0) for sha, kind in kinds.items()}

    def resolve(sha: bytes) -> tuple[int, int]:
        """The object's own type and its delta depth (a base outside the pack: ``KeyError``)."""
        chain: list[bytes] = []
        current = sha
        while current not in resolved:
            if len(chain) > len(bases):
                raise KeyError(sha)  # a cycle
            chain.append(current)
            current = bases[current]
        kind, depth = resolved[current]
        for item in reversed(chain):
            depth += 1
            resolved[item] = (kind, depth)
        return resolved[sha]

    records: list[Record] = []
    try:
        for sha, _, data, base in parsed:
            kind, depth = resolve(sha)
            records.append(Record(sha, kind, data, base, depth))
    except KeyError:
        return None
    return records


def _payload(record: Record) -> bytes:
    """A record's zlib stream, inflated: the object (whole) or the delta."""
    pos = 1
    while record.data[pos - 1] & 0x80:
        pos += 1
    if record.base is not None:
        pos += 20
    return zlib.decompress(record.data[pos:])


def contents(records: list[Record], kinds: frozenset[int]) -> dict[bytes, bytes]:
    """The content of every record of ``kinds`` among ``records`` (one pack's, in the order stored:
    a base before its deltas, as written here), each inflated and each delta applied once."""
    from dulwich.pack import apply_delta  # dulwich's C implementation when built

    out: dict[bytes, bytes] = {}
    for record in records:
        if record.kind not in kinds:
            continue
        payload = _payload(record)
        if record.base is None:
            out[record.sha] = payload
        else:
            out[record.sha] = b"".join(apply_delta(out[record.base], payload))
    return out


def remove_stray_files(pack_dir: Path) -> None:
    """Remove what killed writers left behind: temporary files, and packs whose index never came."""
    try:
        names = os.listdir(pack_dir)
    except OSError:
        return
    old = time.time() - _STRAY_AGE_S
    present = set(names)
    for name in names:
        stray = name.startswith(_TEMP_PREFIX) or (name.endswith(".pack") and name[:-5] + ".idx" not in present)
        if not stray:
            continue
        path = pack_dir / name
        try:
            if path.stat().st_mtime < old:
                path.unlink()
        except OSError:
            pass
