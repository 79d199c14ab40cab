"""A session file's skeleton: each line's id, parent, type and bytes, read without parsing the JSON.

Opening a 100,000-entry file parses 134 MB of JSON (~1.5 s) before anything can be drawn; the first
picture needs only the leaf's stretch of the tree (issue 28). pi writes every entry's first keys in one
order (``{"type":…,"id":…,"parentId":…,"timestamp":…``), so one regular expression over the bytes
finds the tree's shape in ~0.1 s, and :func:`first_picture_lines` picks the lines the first picture
reads: the leaf's path up to where its context starts (and its latest thinking-level and model
changes), the branches near the leaf (the same bounds as the canvas's neighbourhood), and every
label and session name. Only those are parsed before the window shows; the whole file is parsed
afterwards by the ordinary loader, which alone decides what the session holds.

Anything the skeleton cannot vouch for (a line that does not start as pi writes it, a duplicate id,
a file that does not end in a newline, an old format) returns ``None``: the caller then opens the
file the ordinary way. Pure byte work, no Qt, no parsing beyond the chosen lines.
"""

from __future__ import annotations

import mmap
import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from .entries import ParsedText, is_valid_header, parse_session_lines

__all__ = ["FirstPicture", "Skeleton", "first_picture_lines", "scan_skeleton"]

# A line as pi writes it: type, id, parentId (a string or null), then the timestamp. Ids with an
# escape or a control character are not taken: the bytes would not be the string.
_HEAD = re.compile(rb'\{"type":"([a-z_]{1,40})","id":"([^"\\\x00-\x1f]+)","parentId":(?:"([^"\\\x00-\x1f]+)"|null),"timestamp":"')

#: The canvas's neighbourhood bounds (``present.neighbourhood.NeighbourhoodLimits``, a layer above):
#: entries of the path above the leaf, of each branch leaving it, and in all.
PATH_ENTRIES = 400
BRANCH_ENTRIES = 60
TOTAL_ENTRIES = 2_500
#: Beyond this many lines for the first picture, parsing them is most of a full open: open fully.
MAX_FIRST_LINES = 30_000
#: Lines parsed up the path looking for the newest thinking-level and model changes at most.
SOURCE_WALK = 20_000


@dataclass
class Skeleton:
    """Per line after the header (index 0 is the file's second line): where it is and what it is.

    Ids, parents and types are the bytes in the file (decoding 300,000 of them would be ~70 ms):
    :meth:`entry_id` decodes one as the parser would."""

    data: bytes | mmap.mmap
    header: ParsedText
    starts: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)
    ids: list[bytes] = field(default_factory=list)
    parents: list[bytes | None] = field(default_factory=list)
    types: list[bytes] = field(default_factory=list)
    line_of: dict[bytes, int] = field(default_factory=dict)

    def entry_id(self, n: int) -> str:
        return self.ids[n].decode("utf-8", errors="replace")

    def parent_id(self, n: int) -> str | None:
        parent = self.parents[n]
        return None if parent is None else parent.decode("utf-8", errors="replace")

    def entry_type(self, n: int) -> str:
        return self.types[n].decode()

    def line(self, n: int) -> bytes:
        return self.data[self.starts[n] : self.ends[n]]


def scan_skeleton(data: bytes | mmap.mmap) -> Skeleton | None:
    """The skeleton of a whole file's bytes, or ``None`` when a line is not as pi writes it.

    ``None`` also for: no trailing newline (the last line may be unfinished), a blank line, a first
    line that is not a valid v3 header, a duplicate id. The ordinary loader handles all of those.
    ``data`` may be the file mapped into memory (nothing copied: ~0.1 s less at 134 MB).
    """
    if data[-1:] != b"\n":
        return None
    first_end = data.find(b"\n")
    header = parse_session_lines([data[:first_end]])
    if header.malformed or len(header.objects) != 1:
        return None
    head = header.objects[0]
    if not is_valid_header(head) or head.get("version") != 3:
        return None
    skeleton = Skeleton(data, header)
    starts, ends, ids, parents, types = (skeleton.starts, skeleton.ends, skeleton.ids, skeleton.parents,
                                         skeleton.types)
    match, find = _HEAD.match, data.find
    pos = first_end + 1
    size = len(data)
    while pos < size:
        end = find(b"\n", pos)
        found = match(data, pos, end)
        if found is None:
            return None
        kind, entry_id, parent = found.groups()
        starts.append(pos)
        ends.append(end)
        types.append(kind)
        ids.append(entry_id)
        parents.append(parent)
        pos = end + 1
    skeleton.line_of = dict(zip(ids, range(len(ids)), strict=True))
    if len(skeleton.line_of) != len(ids):
        return None  # a duplicate id
    return skeleton


@dataclass
class FirstPicture:
    """The lines to parse before the first picture (indices into the skeleton, in file order)."""

    lines: list[int]
    leaf_id: str | None
    #: ``label`` and ``session_info`` lines (all of them, file order): the index's labels and name.
    bookkeeping: list[int]
    context_edits: int


def first_picture_lines(skeleton: Skeleton, parse_one: Callable[[int], object]) -> FirstPicture | None:
    """What the first picture reads (see the module's docstring), or ``None`` when that is most of
    the file. ``parse_one(n)``: line ``n`` parsed (the walk reads a compaction's first kept entry)."""
    ids, parents, types = skeleton.ids, skeleton.parents, skeleton.types
    if not ids:
        return None
    path = _path_lines(skeleton, skeleton.line_of, parse_one)
    if path is None:
        return None
    children: dict[bytes, list[int]] = {}
    for n, parent in enumerate(parents):
        if parent is not None:
            children.setdefault(parent, []).append(n)
    lines = path + _branch_lines(ids, children, path)
    taken = set(lines)
    lines += [n for n in _leading_lines(skeleton, parse_one) if n not in taken]
    if len(lines) > MAX_FIRST_LINES:
        return None
    bookkeeping = [n for n, kind in enumerate(types) if kind == b"label" or kind == b"session_info"]
    return FirstPicture(sorted(lines), skeleton.entry_id(len(ids) - 1), bookkeeping, types.count(b"context_edit"))


def _path_lines(skeleton: Skeleton, line_of: dict[bytes, int], parse_one: Callable[[int], object]) -> list[int] | None:
    """The leaf's path upwards: the neighbourhood's stretch, the context's (from the newest
    compaction's first kept entry), and on to the newest thinking-level and model changes (at most
    :data:`SOURCE_WALK` entries once the context is in). ``None``: too long, or an odd compaction."""
    ids, parents, types = skeleton.ids, skeleton.parents, skeleton.types
    path: list[int] = []
    seen: set[int] = set()
    at: int | None = len(ids) - 1
    first_kept: bytes | None = None
    context_done = thinking = model = False
    while at is not None and at not in seen:
        if context_done and (len(path) >= SOURCE_WALK or (len(path) >= PATH_ENTRIES and thinking and model)):
            break
        if len(path) > MAX_FIRST_LINES:
            return None
        path.append(at)
        seen.add(at)
        kind = types[at]
        if first_kept is None and kind == b"compaction" and not context_done:
            entry = parse_one(at)
            kept = entry.get("firstKeptEntryId") if isinstance(entry, dict) else None
            if not isinstance(kept, str):
                return None  # an unusual compaction: the ordinary open
            first_kept = kept.encode("utf-8", errors="surrogatepass")
        context_done = context_done or (first_kept is not None and ids[at] == first_kept)
        thinking = thinking or kind == b"thinking_level_change"
        model = model or kind == b"model_change"
        parent = parents[at]
        at = line_of.get(parent) if parent is not None else None
    return path


#: How far into the file the first user message is looked for (the window's title without a name).
LEADING_LINES = 20


def _leading_lines(skeleton: Skeleton, parse_one: Callable[[int], object]) -> list[int]:
    """The file's first lines up to its first user message, which names an unnamed session in the
    window's title (``present.sessions.session_title``); none if it is not among the first
    :data:`LEADING_LINES`."""
    for n in range(min(LEADING_LINES, len(skeleton.ids))):
        if skeleton.types[n] != b"message":
            continue
        entry = parse_one(n)
        message = entry.get("message") if isinstance(entry, dict) else None
        if isinstance(message, dict) and message.get("role") == "user":
            return list(range(n + 1))
    return []


def _branch_lines(ids: list[bytes], children: dict[bytes, list[int]], path: list[int]) -> list[int]:
    """The branches leaving the path's first :data:`PATH_ENTRIES` entries, nearest first, each
    breadth first, within the canvas's bounds (``present.neighbourhood.leaf_neighbourhood``)."""
    near = path[:PATH_ENTRIES]
    taken: set[int] = set(near)
    on_path = set(path)
    out: list[int] = []
    total = len(near)
    for stem in near:
        for first in children.get(ids[stem], ()):
            if total >= TOTAL_ENTRIES:
                return out
            if first in taken:
                continue
            budget = min(BRANCH_ENTRIES, TOTAL_ENTRIES - total)
            queue, got = deque([first]), 0
            while queue and got < budget:
                m = queue.popleft()
                if m in taken:
                    continue
                taken.add(m)
                got += 1
                if m not in on_path:
                    out.append(m)
                queue.extend(c for c in children.get(ids[m], ()) if c not in taken)
            total += got
    return out
