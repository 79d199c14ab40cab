"""Semantic zoom: what the canvas writes at a given scale, and where, so that every word is readable.

A node's own text is 12 px in scene units: at 30 % zoom it would be 4 px on screen, a grey smear.
Instead of shrinking text with the picture, the canvas picks a *level of detail* from the scale
(:func:`detail_for`) and writes labels in **screen space**, at the UI's own size, wherever they fit:

- :attr:`Detail.FULL` (near): the nodes draw their own text; nothing is added.
- :attr:`Detail.GROUPS` (nearer): every node on screen may get a one-line label — a folded run its
  count and first line, an entry its kind and first line — inside its box when the box is wide
  enough on screen, else beside it.
- :attr:`Detail.LANDMARKS` (far): only the landmarks a user steers by — the active leaf, roots
  (with the session name), labels, compactions (tokens before), branch summaries, branch points
  and the other leaves — as markers of constant screen size with a short label.

:func:`node_marks` decides what each node would say and how much it matters (its *rank*);
:func:`place_labels` then places labels greedily, most important first, never letting two text
rectangles overlap and never leaving the viewport: a label that does not fit is dropped, not
squeezed. All of it is plain Python over screen coordinates the view hands in, so the tests run
without Qt and the view only paints the result.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum, StrEnum
from itertools import islice
from operator import attrgetter
from typing import Final, assert_never

from .pacing import CHECK, UNPACED, Pace, Steps, finish
from .text import KIND_TITLES, NodeKind
from .viewgraph import Node, ViewGraph, ViewNode

__all__ = [
    "FULL_SCALE",
    "GROUPS_SCALE",
    "LANDMARK_ROLES",
    "Detail",
    "Mark",
    "MarkRole",
    "Marks",
    "Placed",
    "compaction_words",
    "Rect",
    "detail_for",
    "elide",
    "landmarks_of",
    "node_marks",
    "node_marks_steps",
    "place_labels",
    "shows_text",
    "stretch_rows",
    "update_marks",
    "wrap_two",
]

#: From this scale up a node's own 12 px text is at least ~10 px on screen: the nodes write it.
FULL_SCALE: Final = 0.85
#: Below this scale node boxes are a few pixels tall: only landmarks are labelled.
GROUPS_SCALE: Final = 0.3

#: The longest label, in characters, before it is cut with "…" (screen space is precious far out).
_MAX_CHARS: Final = 44


class Detail(Enum):
    """How much the canvas writes at a scale (see the module docstring)."""

    LANDMARKS = "landmarks"
    GROUPS = "groups"
    FULL = "full"


def detail_for(scale: float) -> Detail:
    """The level of detail for a view scale (1.0 = 100 %)."""
    if scale >= FULL_SCALE:
        return Detail.FULL
    if scale >= GROUPS_SCALE:
        return Detail.GROUPS
    return Detail.LANDMARKS


# ----------------------------------------------------------------------------------- stretches


def stretch_rows(count: int) -> int:
    """Rows a node spans down the layout: 1 for an entry; a folded run of ``count`` entries spans
    ``1 + round(2·log10(count))`` (2 entries: 2 rows, 10: 3, 100: 5, 1,000: 7), its edge to the
    next node running through the extra rows.

    Far out, where no count is legible, a linear stretch is then drawn as a line whose length shows
    its size (issue 10 item 1). Logarithmic, because a proportional line would make a 100,000-entry
    session a hundred thousand rows tall; monotone, so a longer line is always a longer run.
    """
    if count < 2:
        return 1
    return 1 + round(2 * math.log10(count))


# ----------------------------------------------------------------------------------- marks

class MarkRole(StrEnum):
    """Why the canvas labels a node, most important first: when labels compete for room, the
    earlier role wins."""

    ACTIVE_LEAF = "active-leaf"
    ROOT = "root"
    LABEL = "label"
    COMPACTION = "compaction"
    BRANCH_SUMMARY = "branch_summary"
    BRANCH = "branch"
    LEAF = "leaf"
    SEGMENT = "segment"
    ENTRY = "entry"


_ROLE_RANK: Final[dict[str, int]] = {role: rank for rank, role in enumerate(MarkRole)}
#: The roles that are labelled far out (everything but plain entries and folded runs).
LANDMARK_ROLES: Final = frozenset(MarkRole) - {MarkRole.SEGMENT, MarkRole.ENTRY}
#: The first rank that is not a landmark's: every landmark role ranks before it (:func:`landmarks_of`).
_FIRST_PLAIN_ROLE_RANK: Final = min(rank for role, rank in _ROLE_RANK.items() if role not in LANDMARK_ROLES)
#: Node kinds that are a role of their own.
_LANDMARK_KINDS: Final[dict[str, MarkRole]] = {NodeKind.COMPACTION: MarkRole.COMPACTION, NodeKind.BRANCH_SUMMARY: MarkRole.BRANCH_SUMMARY}


@dataclass(frozen=True, slots=True)
class Mark:
    """What one node says when the canvas labels it, and how much that matters."""

    node: Node
    role: MarkRole
    text: str  #: the label, one line, at most ~44 characters
    kind: str  #: the node's kind (for its colour)
    rank: tuple[int, int, int]  #: sort key: role, off the active path, pre-order position

    @property
    def is_landmark(self) -> bool:
        return self.role in LANDMARK_ROLES


def _cut(text: str, limit: int = _MAX_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def compaction_words(text: str) -> str:
    """``[compaction: 18k tokens]`` (pi's line) → ``18k tokens before``; pi's ``0k`` (a compaction of
    under 500 tokens) reads ``under 1k tokens before``, not as if nothing had been summarized."""
    if text.startswith("[compaction: "):
        amount = text.removeprefix("[compaction: ").removesuffix("]")
        return ("under 1k tokens" if amount == "0k tokens" else amount) + " before"
    return "tokens before unknown"


def _role(graph: ViewGraph, node: Node, view: ViewNode) -> MarkRole:
    if view.is_leaf or node == graph.leaf_node:
        return MarkRole.ACTIVE_LEAF
    if view.label:
        return MarkRole.LABEL
    landmark = _LANDMARK_KINDS.get(view.kind)
    if landmark is not None:
        return landmark
    if len(graph.children_of(node)) > 1:
        return MarkRole.BRANCH
    if graph.parent_of(node) is None:
        return MarkRole.ROOT
    if not graph.children_of(node):
        return MarkRole.LEAF
    return MarkRole.SEGMENT if view.is_segment else MarkRole.ENTRY


def _text(graph: ViewGraph, node: Node, view: ViewNode, role: MarkRole, session_name: str | None) -> str:
    first = view.text or KIND_TITLES.get(view.kind, view.kind)
    if view.kind == NodeKind.COMPACTION:
        body = "✂ " + compaction_words(view.text)
    elif view.kind == NodeKind.BRANCH_SUMMARY:
        body = "⤺ " + (view.text or "branch summary")
    elif view.is_segment:
        body = f"⋯ {view.count} · {first}"
    else:
        body = f"{KIND_TITLES.get(view.kind, view.kind)}: {first}"
    match role:
        case MarkRole.ACTIVE_LEAF:
            return _cut("● leaf · " + body)
        case MarkRole.LABEL:
            return _cut(f"⚑ {view.label} · {body}", _MAX_CHARS + 8)
        case MarkRole.ROOT:
            return _cut(f"◉ {session_name}" if session_name else "◉ start · " + body)
        case MarkRole.BRANCH:
            return _cut(f"⋔ {len(graph.children_of(node))} branches · {body}")
        case MarkRole.LEAF:
            return _cut("◦ " + body)
        case MarkRole.COMPACTION | MarkRole.BRANCH_SUMMARY | MarkRole.SEGMENT | MarkRole.ENTRY:
            return _cut(body)
        case _ as unreachable:
            assert_never(unreachable)


def _mark(graph: ViewGraph, node: Node, view: ViewNode, position: int, session_name: str | None) -> Mark:
    role = _role(graph, node, view)
    text = _text(graph, node, view, role, session_name)
    rank = (_ROLE_RANK[role], 0 if view.on_active_path else 1, position)
    return Mark(node, role, text, view.kind, rank)


class Marks(Mapping[Node, Mark]):
    """Every node's :class:`Mark`: looked up by node, iterated in rank order (most important first).

    A mapping (``marks[node]``, ``==`` as a dict, iteration in rank order) that also holds the
    ranked list itself (:attr:`ranked`), so an append re-ranks by bisection in that list and a dict
    update, instead of rebuilding an ordered dict of 10,000 marks (~1-3 ms at 100,000 entries, on
    every append while a reply streams).
    """

    __slots__ = ("_by_node", "_ranked")

    def __init__(self, ranked: Iterable[Mark] = ()) -> None:
        self._ranked = list(ranked)  #: in rank order (the caller's promise; :func:`node_marks` sorts)
        self._by_node = {m.node: m for m in self._ranked}

    @property
    def ranked(self) -> Sequence[Mark]:
        """The marks, most important first (read only: it is this object's own list)."""
        return self._ranked

    def __getitem__(self, node: Node) -> Mark:
        return self._by_node[node]

    def __contains__(self, node: object) -> bool:
        return node in self._by_node

    def __iter__(self) -> Iterator[Node]:
        return map(_node_of, self._ranked)

    def __len__(self) -> int:
        return len(self._ranked)

    def __repr__(self) -> str:
        return f"Marks({self._ranked!r})"

    def copy(self) -> Marks:
        """A shallow copy (pointer copies of the list and the dict, no mark made again)."""
        twin = Marks()
        twin._ranked, twin._by_node = list(self._ranked), dict(self._by_node)
        return twin

    def _swap(self, out: Iterable[Node], into: Iterable[Mark]) -> bool:
        """Take the marks of ``out`` nodes away and put ``into`` in at their ranks, in place: each by
        bisection at its rank (ranks are unique: positions are). False, with nothing changed, if a
        mark to take is not where its rank says (the list was not in rank order)."""
        ranked = self._ranked
        at: list[int] = []
        for node in out:
            old = self._by_node.get(node)
            if old is None:
                continue
            i = bisect.bisect_left(ranked, old.rank, key=_rank_of)
            if i == len(ranked) or ranked[i] is not old:
                return False
            at.append(i)
        for i in sorted(at, reverse=True):
            del self._by_node[ranked[i].node]
            del ranked[i]
        for mark in into:
            ranked.insert(bisect.bisect_left(ranked, mark.rank, key=_rank_of), mark)
            self._by_node[mark.node] = mark
        return True


def node_marks(graph: ViewGraph, session_name: str | None = None) -> Marks:
    """What every node of ``graph`` would say, in order of importance (most important first).

    A node that is several things at once (a labelled branch point, a compaction on the leaf)
    takes its most important role; the root shows the session name when there is one.
    """
    return finish(node_marks_steps(graph, session_name, UNPACED))


def node_marks_steps(graph: ViewGraph, session_name: str | None, pace: Pace) -> Steps[Marks]:
    """:func:`node_marks` a slice at a time (:mod:`.pacing`), for a big session's whole graph."""
    marks: list[Mark] = []
    for position, (node, view) in enumerate(graph.nodes.items()):
        if not position & CHECK and pace.due():
            yield
        marks.append(_mark(graph, node, view, position, session_name))
    marks.sort(key=_rank_of)
    return Marks(marks)


def update_marks(
    graph: ViewGraph,
    marks: Marks,
    dirty: Iterable[Node],
    session_name: str | None = None,
    *,
    in_place: bool = False,
) -> Marks:
    """:func:`node_marks` of ``graph`` from the ``marks`` of its previous state, when only ``dirty``
    nodes can say something else (added, restyled, or their children or leaf flag changed; nodes
    gone from ``graph`` are dropped). Every other mark is kept (its position renumbered if a node
    before it went), so an append costs a few marks and a few bisections, not 10,000 texts.

    ``in_place``: when the quick way answers (appends), change ``marks`` itself and return it, for
    its owner's cache (no copy of 10,000 marks); otherwise ``marks`` is left as it was.
    """
    nodes = graph.nodes
    dirty = set(dirty)  # read twice below: a generator would be empty the second time
    redo = {node for node in dirty if node in nodes}
    quick = _appended_marks(graph, marks, dirty, redo, session_name)
    if quick is not None:
        out_nodes, into = quick
        target = marks if in_place else marks.copy()
        if target._swap(out_nodes, into):
            return target
    position = {node: i for i, node in enumerate(nodes)}
    out: list[Mark] = []
    for mark in marks.ranked:
        at = position.get(mark.node)
        if at is None or mark.node in redo:
            continue
        if mark.rank[2] != at:
            mark = replace(mark, rank=(mark.rank[0], mark.rank[1], at))
        out.append(mark)
    out.extend(_mark(graph, node, nodes[node], position[node], session_name) for node in redo)
    if len(out) != len(nodes):  # a node neither marked before nor named dirty: be exact, not quick
        return node_marks(graph, session_name)
    out.sort(key=_rank_of)
    return Marks(out)


def _appended_marks(
    graph: ViewGraph, marks: Marks, dirty: set[Node], redo: set[Node], session_name: str | None
) -> tuple[list[Node], list[Mark]] | None:
    """:func:`update_marks` for the streaming case, without touching every mark: when the only
    nodes gone are dirty ones and the new ones are dirty too (so the graph's order is the old one
    with nodes taken out and added at its end), only the marks from the first gone node on can
    have moved. Returns the nodes whose marks go and the marks to put in (the dirty ones and those
    renumbered), or ``None`` when that does not hold (the caller takes the general way)."""
    nodes = graph.nodes
    gone = [node for node in dirty if node in marks and node not in nodes]
    new = [node for node in redo if node not in marks]
    if len(marks) - len(gone) + len(new) != len(nodes):
        return None  # something else came or went: not a plain append
    start = min((marks[node].rank[2] for node in gone), default=len(marks) - len(gone))
    if len(nodes) - start + len(redo) + len(gone) > 256:
        return None  # a big shift: the general way is as quick
    # the tail of the graph's order from ``start``, read from its end (not a copy of 10,000 nodes)
    tail = list(islice(reversed(nodes), len(nodes) - start))[::-1]
    if any(node not in redo and node not in marks for node in tail):
        return None
    remake: dict[Node, Mark] = {}
    for i, node in enumerate(tail, start):  # positions shifted by the nodes that went
        old = marks.get(node)
        if node in redo or old is None:
            continue
        if old.rank[2] != i:
            remake[node] = replace(old, rank=(old.rank[0], old.rank[1], i))
    position = {node: i for i, node in enumerate(tail, start)}
    for node in redo:
        at = position.get(node)
        if at is None:  # before the tail: restyled in place, its place unchanged...
            old = marks.get(node)
            if old is None:
                return None  # ... unless it is new there: everything after it moved
            at = old.rank[2]
        remake[node] = _mark(graph, node, nodes[node], at, session_name)
    return [*gone, *remake], list(remake.values())


_rank_of = attrgetter("rank")
_node_of = attrgetter("node")


def landmarks_of(ranked: Sequence[Mark]) -> list[Mark]:
    """The landmarks among ``ranked`` (marks in rank order, as :func:`node_marks` gives them).

    Every landmark role ranks before folded runs and plain entries, so they are a prefix, found by
    bisection: a slice instead of a test per mark (7,000 landmarks of 10,000 marks at 100,000 entries).
    """
    return list(ranked[: bisect.bisect_left(ranked, _FIRST_PLAIN_ROLE_RANK, key=_role_rank_of)])


def _role_rank_of(mark: Mark) -> int:
    return mark.rank[0]


def shows_text(mark: Mark, detail: Detail) -> bool:
    """Whether the canvas labels ``mark``'s node at ``detail`` (space permitting).

    ``FULL``: no (the node draws its own text); ``GROUPS``: every node; ``LANDMARKS``: landmarks.
    """
    if detail is Detail.FULL:
        return False
    return detail is Detail.GROUPS or mark.is_landmark


# ----------------------------------------------------------------------------------- placement


@dataclass(frozen=True)
class Rect:
    """An axis-aligned rectangle in screen pixels."""

    x: float
    y: float
    w: float
    h: float

    @property
    def right(self) -> float:
        return self.x + self.w

    @property
    def bottom(self) -> float:
        return self.y + self.h

    def intersects(self, other: Rect) -> bool:
        return self.x < other.right and other.x < self.right and self.y < other.bottom and other.y < self.bottom

    def contains(self, other: Rect) -> bool:
        return self.x <= other.x and self.y <= other.y and other.right <= self.right and other.bottom <= self.bottom


@dataclass(frozen=True)
class Placed:
    """A label the canvas draws: the node, its words (maybe elided) and their screen rectangle."""

    mark: Mark
    text: str
    rect: Rect
    inside: bool  #: written inside the node's box (``GROUPS``) rather than beside its marker


def elide(text: str, width: float, measure: Callable[[str], float]) -> str:
    """The longest prefix of ``text`` (plus "…") that ``measure`` says fits in ``width`` pixels."""
    if measure(text) <= width:
        return text
    lo, hi = 0, len(text)
    while lo < hi:  # the largest n with measure(text[:n] + "…") <= width
        mid = (lo + hi + 1) // 2
        if measure(text[:mid].rstrip() + "…") <= width:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo].rstrip() + "…" if lo > 0 else ""


def wrap_two(text: str, width: float, measure: Callable[[str], float]) -> tuple[str, ...]:
    """``text`` on at most two lines of ``width`` pixels: the words that fit, then the rest elided
    with "…" (one line if it fits; a first word wider than the line is elided on its own)."""
    if measure(text) <= width:
        return (text,)
    first = ""
    for word in text.split(" "):
        candidate = f"{first} {word}" if first else word
        if measure(candidate) > width:
            break
        first = candidate
    if not first:
        return (elide(text, width, measure),)
    rest = text[len(first) :].lstrip()
    return (first, elide(rest, width, measure)) if rest else (first,)


class _Grid:
    """Rectangles bucketed by screen cell, so each overlap test looks at a few neighbours only."""

    def __init__(self, cell: float = 64.0) -> None:
        self.cell = cell
        self.cells: dict[tuple[int, int], list[Rect]] = {}

    def _keys(self, r: Rect) -> Iterable[tuple[int, int]]:
        c = self.cell
        for gx in range(int(r.x // c), int(r.right // c) + 1):
            for gy in range(int(r.y // c), int(r.bottom // c) + 1):
                yield gx, gy

    def hits(self, r: Rect) -> bool:
        return any(r.intersects(o) for key in self._keys(r) for o in self.cells.get(key, ()))

    def add(self, r: Rect) -> None:
        for key in self._keys(r):
            self.cells.setdefault(key, []).append(r)


def place_labels(
    marks: Iterable[Mark],
    detail: Detail,
    screen_of: Mapping[Node, tuple[float, float]],
    box: tuple[float, float],
    viewport: Rect,
    measure: Callable[[str], float],
    line_height: float,
    *,
    marker_radius: float = 6.0,
    max_width: float = 320.0,
    obstacles: Iterable[Rect] = (),
    text_height: float = 0.0,
) -> list[Placed]:
    """Labels for ``marks`` (most important first) that fit: none overlaps another or leaves
    ``viewport``.

    ``screen_of`` gives a node's centre in screen pixels (nodes off screen are left out), ``box``
    a node's half width and half height on screen, ``measure`` a string's width in pixels and
    ``line_height`` a label's height. At ``GROUPS`` a label goes inside its node's box when the box
    holds at least a few words; otherwise (and always at ``LANDMARKS``) it goes beside the node's
    marker: right, left, then a line above or below. ``obstacles`` are rectangles no label may
    cover (the minimap, a find bar). With ``text_height`` (a line of text without the label's
    padding), a label inside a box tall enough for two such lines wraps onto two (:func:`wrap_two`;
    its text then holds a newline), as the nodes write their own text nearer in.
    """
    if detail is Detail.FULL:
        return []
    grid = _Grid()
    for rect in obstacles:
        grid.add(rect)
    half_w, half_h = box
    reach = max(half_w, marker_radius) + 4.0
    wanted = [m for m in marks if shows_text(m, detail) and m.node in screen_of]
    # What a label beside a node must not cover either: the other nodes' boxes (GROUPS) or the
    # landmarks' markers (LANDMARKS).
    shapes = _Grid()
    if detail is Detail.GROUPS:
        for sx, sy in screen_of.values():
            shapes.add(Rect(sx - half_w, sy - half_h, 2 * half_w, 2 * half_h))
    else:
        r = marker_radius
        for mark in wanted:
            sx, sy = screen_of[mark.node]
            shapes.add(Rect(sx - r, sy - r, 2 * r, 2 * r))
    placed: list[Placed] = []
    inside_min = measure("abcdefghij")  # a box narrower than ten letters holds no useful words
    for mark in wanted:
        centre = screen_of.get(mark.node)
        if centre is None:
            continue
        sx, sy = centre
        if detail is Detail.GROUPS and 2 * half_w - 12 >= inside_min and 2 * half_h >= line_height:
            room = 2 * half_w - 12
            two = text_height > 0 and 2 * half_h >= 2 * text_height + 2
            lines = wrap_two(mark.text, room, measure) if two else (elide(mark.text, room, measure),)
            text = "\n".join(lines)
            height = 2 * text_height if len(lines) == 2 else line_height
            rect = Rect(sx - half_w + 6, sy - height / 2, max(measure(line) for line in lines), height)
            if text and viewport.contains(rect) and not grid.hits(rect):
                grid.add(rect)
                placed.append(Placed(mark, text, rect, True))
                continue
        text = elide(mark.text, max_width, measure)
        if not text:
            continue
        width = measure(text) + 8.0  # a little padding each side of the words
        top = sy - line_height / 2
        for x, y in (
            (sx + reach, top),
            (sx - reach - width, top),
            (sx + reach, top - line_height),
            (sx + reach, top + line_height),
            (sx - reach - width, top - line_height),
            (sx - reach - width, top + line_height),
        ):
            rect = Rect(x, y, width, line_height)
            # the active leaf's label may cover other markers: it is the one thing always labelled
            blocked = shapes.hits(rect) and mark.role is not MarkRole.ACTIVE_LEAF
            if viewport.contains(rect) and not grid.hits(rect) and not blocked:
                grid.add(rect)
                placed.append(Placed(mark, text, rect, False))
                break
    return placed
