"""Where nodes go: an O(n) tidy tree now, Graphviz ``dot`` later, in a child process. No Qt.

Measured on this machine (DESIGN.md §8): pygraphviz holds the GIL for the whole layout, and ``dot``
needs ~2 s at 4,000 nodes and minutes at 20,000. So the canvas always shows the tidy tree first
(Buchheim–Walker, linear time, iterative because sessions are 10k+ entries deep), then swaps in
``dot``'s positions when a child process delivers them, only for view graphs up to
:data:`DOT_NODE_LIMIT` nodes. A newer request kills the child working on an older one.

Positions are node centres in scene pixels, y growing downwards, one row per tree depth.
"""

from __future__ import annotations

import asyncio
import atexit
import bisect
import json
import logging
import math
import subprocess
import sys
import threading
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop_app.present.lod import stretch_rows
from desktop_app.present.pacing import CHECK, UNPACED, Pace, Steps, finish
from desktop_app.present.viewgraph import Node, ViewGraph

__all__ = [
    "DOT_NODE_LIMIT",
    "DotJob",
    "LayoutError",
    "LayoutSpec",
    "LayoutSuperseded",
    "Layouter",
    "Positions",
    "dot_layout_in_subprocess",
    "RowIndex",
    "layout",
    "place_new_node",
    "tidy_tree_layout",
    "tidy_tree_steps",
]

log = logging.getLogger(__name__)

#: Above this many view nodes the tidy tree is final: dot would take seconds (DESIGN.md §8).
DOT_NODE_LIMIT = 2500
#: A dot child still running after this long is killed and the tidy tree stays.
DOT_TIMEOUT = 60.0
_WORKER = Path(__file__).with_name("dot_worker.py")
#: The child's command line. ``None``: this interpreter running ``dot_worker.py``. A frozen build
#: (PyInstaller) must set it, e.g. to ``[sys.executable, "--dot-worker"]`` with the CLI calling
#: ``dot_worker.main()``; until then dot is reported unavailable there rather than re-launching
#: the app itself as the "worker".
WORKER_COMMAND: list[str] | None = None


def _worker_command() -> list[str] | None:
    if WORKER_COMMAND is not None:
        return list(WORKER_COMMAND)
    if getattr(sys, "frozen", False):
        return None
    return [sys.executable, str(_WORKER)]


Positions = dict[Node, tuple[float, float]]
DotCallback = Callable[[Positions | None, str | None], None]


class LayoutError(Exception):
    """The dot child failed (crash, bad output, timeout)."""


class LayoutSuperseded(Exception):
    """A newer layout request replaced this one before it finished."""


@dataclass(frozen=True)
class LayoutSpec:
    """Node box size and gaps, shared by both layouts so their rows and columns line up."""

    node_width: float = 220.0
    node_height: float = 56.0  # a tag line and two lines of text (issue 22 item 10)
    h_gap: float = 26.0
    v_gap: float = 34.0

    @property
    def column(self) -> float:
        return self.node_width + self.h_gap

    @property
    def row(self) -> float:
        return self.node_height + self.v_gap


# ----------------------------------------------------------------------------------- tidy tree


def _forest(graph: ViewGraph, pace: Pace) -> Steps[tuple[list[Node], list[list[int]], list[int]]]:
    """Nodes, children (by index) and parents of ``graph`` as a forest under a virtual root.

    The view graph is a forest already; this only guards the layout against anything else: a
    second parent is ignored, and a cycle is entered at its first node in graph order.
    """
    nodes = list(graph.nodes)
    count = len(nodes)
    index = {n: i for i, n in enumerate(nodes)}
    root = count
    children: list[list[int]] = [[] for _ in range(count + 1)]
    parent = [-1] * (count + 1)
    for i, n in enumerate(nodes):
        if not i & CHECK and pace.due():
            yield
        for child in graph.children_of(n):
            c = index[child]
            if parent[c] == -1 and c != i:
                parent[c] = i
                children[i].append(c)
    listed = [index[r] for r in graph.roots if r in index and parent[index[r]] == -1]
    seen = set(listed)
    roots = listed + [i for i in range(count) if parent[i] == -1 and i not in seen]
    reached = [False] * (count + 1)
    stack = list(roots)
    popped = 0
    while stack:
        popped += 1
        if not popped & CHECK and pace.due():
            yield
        v = stack.pop()
        reached[v] = True
        stack.extend(children[v])
    for i in range(count):  # cycles: cut the edge into the first unreached node, make it a root
        if not reached[i]:
            p = parent[i]
            children[p].remove(i)
            roots.append(i)
            stack = [i]
            while stack:
                v = stack.pop()
                reached[v] = True
                stack.extend(children[v])
    for r in roots:
        parent[r] = root
    children[root] = roots
    return nodes, children, parent


def _stretch(graph: ViewGraph, nodes: list[Node], children: list[list[int]], parent: list[int], pace: Pace) -> Steps[None]:
    """A folded run spans :func:`~desktop_app.present.lod.stretch_rows` rows: chain that many − 1
    placeholder nodes (indices after the virtual root) between it and its children, so the packing
    keeps the rows its line runs through free, as for any node."""
    view_nodes = graph.nodes
    for i, node in enumerate(nodes):
        if not i & CHECK and pace.due():
            yield
        view = view_nodes.get(node)
        extra = stretch_rows(view.count) - 1 if view is not None and view.is_segment else 0
        if extra <= 0:
            continue
        below = children[i]
        last = i
        for _ in range(extra):
            dummy = len(children)
            children.append([])
            parent.append(last)
            children[last] = [dummy]
            last = dummy
        children[last] = below
        for c in below:
            parent[c] = last


def tidy_tree_layout(graph: ViewGraph, spec: LayoutSpec = LayoutSpec(), *, stretch: bool = True) -> Positions:
    """Buchheim–Walker ("Improving Walker's algorithm to run in linear time", 2002), iteratively.

    Children keep their graph order left to right and subtrees are packed as tightly as their
    contours allow, never overlapping. One change to the paper: a parent sits above its *first*
    child instead of centred over all of them, so a conversation's original thread runs straight
    down and each branch steps out to the right, rather than the main line drifting sideways by
    half a column at every branch point. A folded run spans several rows (:func:`_stretch`), unless
    ``stretch`` is off (a page that writes each run's count in its box and cannot zoom out).
    """
    return finish(tidy_tree_steps(graph, spec, UNPACED, stretch=stretch))


def tidy_tree_steps(graph: ViewGraph, spec: LayoutSpec, pace: Pace, *, stretch: bool = True) -> Steps[Positions]:
    """:func:`tidy_tree_layout` a slice at a time (:mod:`.pacing`): the same code, the same positions."""
    nodes, children, parent = yield from _forest(graph, pace)
    count = len(nodes)
    if count == 0:
        return {}
    if stretch:
        yield from _stretch(graph, nodes, children, parent, pace)
    tidy = _Tidy(children, parent)
    yield from tidy.number_children(pace)
    yield from tidy.first_walk(count, pace)
    xs, depth = yield from tidy.second_walk(count, pace)
    left_edge = min(xs[:count])
    column, row = spec.column, spec.row
    positions: Positions = {}
    for i in range(count):
        if not i & CHECK and pace.due():
            yield
        positions[nodes[i]] = ((xs[i] - left_edge) * column, depth[i] * row)
    return positions


class _Tidy:
    """The Buchheim–Walker arrays of one layout, indexed by node number (the virtual root last)."""

    def __init__(self, children: list[list[int]], parent: list[int]) -> None:
        total = len(children)
        self.children = children
        self.parent = parent
        self.number = [0] * total
        self.prelim = [0.0] * total
        self.mod = [0.0] * total
        self.shift = [0.0] * total
        self.change = [0.0] * total
        self.thread = [-1] * total
        self.ancestor = list(range(total))
        self.default_ancestor = [-1] * total

    def number_children(self, pace: Pace = UNPACED) -> Steps[None]:
        """Each node's place among its siblings, and its first child as its default ancestor."""
        number, default_ancestor = self.number, self.default_ancestor
        for v, kids in enumerate(self.children):
            if not v & CHECK and pace.due():
                yield
            if kids:
                default_ancestor[v] = kids[0]
                for i, c in enumerate(kids):
                    number[c] = i

    def next_left(self, v: int) -> int:
        kids = self.children[v]
        return kids[0] if kids else self.thread[v]

    def next_right(self, v: int) -> int:
        kids = self.children[v]
        return kids[-1] if kids else self.thread[v]

    def move_subtree(self, wm: int, wp: int, amount: float) -> None:
        subtrees = self.number[wp] - self.number[wm]
        self.change[wp] -= amount / subtrees
        self.shift[wp] += amount
        self.change[wm] += amount / subtrees
        self.prelim[wp] += amount
        self.mod[wp] += amount

    def apportion(self, v: int, default: int) -> int:
        """Push ``v``'s subtree right of its left siblings' contours (the paper's APPORTION)."""
        p, number, prelim, mod = self.parent[v], self.number, self.prelim, self.mod
        next_left, next_right, ancestor = self.next_left, self.next_right, self.ancestor
        if number[v] == 0:
            return default
        siblings = self.children[p]
        vip = vop = v
        vim = siblings[number[v] - 1]
        vom = siblings[0]
        sip, sop, sim, som = mod[vip], mod[vop], mod[vim], mod[vom]
        nr_vim, nl_vip = next_right(vim), next_left(vip)
        while nr_vim != -1 and nl_vip != -1:
            vim, vip = nr_vim, nl_vip
            vom, vop = next_left(vom), next_right(vop)
            ancestor[vop] = v
            amount = (prelim[vim] + sim) - (prelim[vip] + sip) + 1.0
            if amount > 0:
                a = ancestor[vim]
                self.move_subtree(a if self.parent[a] == p else default, v, amount)
                sip += amount
                sop += amount
            sim += mod[vim]
            sip += mod[vip]
            som += mod[vom]
            sop += mod[vop]
            nr_vim, nl_vip = next_right(vim), next_left(vip)
        if nr_vim != -1 and next_right(vop) == -1:
            self.thread[vop] = nr_vim
            mod[vop] += sim - sop
        if nl_vip != -1 and next_left(vom) == -1:
            self.thread[vom] = nl_vip
            mod[vom] += sip - som
            default = v
        return default

    def first_walk(self, root: int, pace: Pace = UNPACED) -> Steps[None]:
        """Post-order: a node is finished after its children (their shifts executed, then placed
        over its first child); apportion right after. One loop, locals bound: 100k nodes."""
        children, parent, number = self.children, self.parent, self.number
        prelim, mod, shift, change = self.prelim, self.mod, self.shift, self.change
        apportion, default_ancestor = self.apportion, self.default_ancestor
        post: list[int] = []
        stack = [root]
        while stack:
            if not len(post) & CHECK and pace.due():
                yield
            v = stack.pop()
            post.append(v)
            stack.extend(children[v])
        for i, v in enumerate(reversed(post)):
            if not i & CHECK and pace.due():
                yield
            kids = children[v]
            p = parent[v]
            left = children[p][number[v] - 1] if p != -1 and number[v] > 0 else -1
            if kids:
                acc_shift = acc_change = 0.0
                for w in reversed(kids):  # execute shifts
                    prelim[w] += acc_shift
                    mod[w] += acc_shift
                    acc_change += change[w]
                    acc_shift += shift[w] + acc_change
                mid = prelim[kids[0]]  # over the first (oldest) child: the original thread runs straight down
                if left != -1:
                    prelim[v] = prelim[left] + 1.0
                    mod[v] = prelim[v] - mid
                else:
                    prelim[v] = mid
            else:
                prelim[v] = prelim[left] + 1.0 if left != -1 else 0.0
            if p != -1:
                default_ancestor[p] = apportion(v, default_ancestor[p])

    def second_walk(self, root: int, pace: Pace = UNPACED) -> Steps[tuple[list[float], list[int]]]:
        """Pre-order: absolute x from accumulated modifiers, depth from the root."""
        children, prelim, mod = self.children, self.prelim, self.mod
        total = len(children)
        xs = [0.0] * total
        depth = [0] * total
        walk: list[tuple[int, float, int]] = [(root, 0.0, -1)]
        i = 0
        while walk:
            i += 1
            if not i & CHECK and pace.due():
                yield
            v, m, d = walk.pop()
            xs[v] = prelim[v] + m
            depth[v] = d
            for w in children[v]:
                walk.append((w, m + mod[v], d + 1))
        return xs, depth


class RowIndex:
    """Where placed nodes are, by row band (half a row tall), so placing a new node reads the one
    row it lands on instead of every position (10,000 at 100,000 entries, on every append while a
    reply streams). Kept beside a positions mapping by its owner (:meth:`add`, :meth:`discard`).

    The occupied band keys are also kept sorted, so :meth:`between` costs what the nodes in range
    cost, not the height of the range asked about (a loop over every band of ``(-1e9, 1e9)`` took
    tens of seconds)."""

    def __init__(self, positions: Mapping[Node, tuple[float, float]], spec: LayoutSpec = LayoutSpec()) -> None:
        self._band = spec.row / 2
        self._bands: dict[int, dict[Node, tuple[float, float]]] = {}
        self._keys: list[int] = []  # the keys of ``_bands``, sorted
        for node, at in positions.items():
            self.add(node, at)

    @classmethod
    def in_steps(
        cls, positions: Mapping[Node, tuple[float, float]], spec: LayoutSpec, pace: Pace
    ) -> Steps[RowIndex]:
        """``RowIndex(positions, spec)`` made a slice at a time (:mod:`.pacing`)."""
        rows = cls({}, spec)
        add = rows.add
        for i, (node, at) in enumerate(positions.items()):
            if not i & CHECK and pace.due():
                yield
            add(node, at)
        return rows

    def _key(self, y: float) -> int:
        return math.floor(y / self._band)

    def add(self, node: Node, at: tuple[float, float]) -> None:
        key = self._key(at[1])
        band = self._bands.get(key)
        if band is None:
            band = self._bands[key] = {}
            bisect.insort(self._keys, key)
        band[node] = at

    def discard(self, node: Node, at: tuple[float, float]) -> None:
        key = self._key(at[1])
        band = self._bands.get(key)
        if band is None:
            return
        band.pop(node, None)
        if not band:
            del self._bands[key]
            del self._keys[bisect.bisect_left(self._keys, key)]

    def between(self, low: float, high: float) -> list[tuple[Node, float]]:
        """Every node with ``low < y < high``, and its x."""
        keys = self._keys
        # an infinite bound has no band; it reaches past every key there is
        start = bisect.bisect_left(keys, self._key(low)) if math.isfinite(low) else 0
        stop = bisect.bisect_right(keys, self._key(high)) if math.isfinite(high) else len(keys)
        found: list[tuple[Node, float]] = []
        for key in keys[start:stop]:
            found.extend((node, x) for node, (x, y) in self._bands[key].items() if low < y < high)
        return found

    def count_in(self, left: float, top: float, right: float, bottom: float, cap: int) -> int:
        """How many nodes lie strictly inside the rectangle, counting no further than ``cap``."""
        count = 0
        for band in range(math.floor(top / self._band), math.floor(bottom / self._band) + 1):
            for x, y in self._bands.get(band, {}).values():
                if left < x < right and top < y < bottom:
                    count += 1
                    if count >= cap:
                        return count
        return count

    def nearest(self, x: float, y: float, sx: float = 1.0, sy: float = 1.0, reach: float = 4.0) -> Node | None:
        """The node nearest to (``x``, ``y``) when distances are scaled by ``sx`` and ``sy`` (the
        minimap's pixels per scene unit, one per axis); ``reach`` is where the search starts, in those
        scaled units, and it widens until it finds one. Reads only the rows near ``y``."""
        if not self._bands or sx <= 0 or sy <= 0:
            return None
        lowest, highest = min(self._bands), max(self._bands)
        r = reach
        while True:
            low, high = y - r / sy, y + r / sy
            best: tuple[float, Node] | None = None
            for band in range(max(math.floor(low / self._band), lowest), min(math.floor(high / self._band), highest) + 1):
                for node, (nx, ny) in self._bands.get(band, {}).items():
                    d = ((nx - x) * sx) ** 2 + ((ny - y) * sy) ** 2
                    if best is None or d < best[0]:
                        best = (d, node)
            if best is not None and math.sqrt(best[0]) <= r:
                return best[1]  # nothing outside the rows read can be nearer
            if low <= lowest * self._band and high >= (highest + 1) * self._band:
                return best[1] if best is not None else None  # every row read
            r = max(r * 2, math.sqrt(best[0]) if best is not None else 0.0)


def place_new_node(
    positions: Mapping[Any, tuple[float, float]],
    graph: ViewGraph,
    node: Node,
    spec: LayoutSpec = LayoutSpec(),
    rows: RowIndex | None = None,
) -> tuple[float, float]:
    """A spot for a freshly appended ``node`` next to its parent that overlaps nothing.

    Directly below the parent when it has no other child (the streaming case), else right of its
    last placed sibling; then nudged right past any node already on that row. Nothing else moves.
    ``rows``: a :class:`RowIndex` of ``positions`` kept by the caller (else one is made here).
    """
    if rows is None:
        rows = RowIndex(positions, spec)
    parent = graph.parent_of(node) if node in graph else None
    half_row = spec.row / 2
    if parent is None or parent not in positions:
        xs = [x for n, x in rows.between(-half_row, half_row) if n != node]
        return ((max(xs) + spec.column) if xs else 0.0, 0.0)
    px, py = positions[parent]
    y = py + spec.row
    siblings = [positions[s][0] for s in graph.children_of(parent) if s != node and s in positions]
    x = max(siblings) + spec.column if siblings else px
    row = sorted(xx for n, xx in rows.between(y - half_row, y + half_row) if n != node)
    min_gap = spec.column * 0.999
    for other in row:  # sorted, so one pass pushes x past every clash to its right
        if abs(other - x) < min_gap:
            x = other + spec.column
    return (x, y)


# ----------------------------------------------------------------------------------- dot child


def _rows(graph: ViewGraph, node: Node) -> int:
    view = graph.nodes[node]
    return stretch_rows(view.count) if view.is_segment else 1


def _payload(graph: ViewGraph, spec: LayoutSpec) -> tuple[list[Node], bytes]:
    nodes = list(graph.nodes)
    index = {n: i for i, n in enumerate(nodes)}
    data = {
        "nodes": len(nodes),
        # a folded run's edge spans its rows (minlen), as in the tidy tree (:func:`_stretch`)
        "edges": [[index[a], index[b], _rows(graph, a)] for a, b in graph.edges()],
        "width": spec.node_width,
        "height": spec.node_height,
        "nodesep": spec.h_gap,
        "ranksep": spec.v_gap,
    }
    return nodes, json.dumps(data, separators=(",", ":")).encode()


_LIVE_JOBS: weakref.WeakSet[DotJob] = weakref.WeakSet()


@atexit.register
def _kill_live_jobs() -> None:
    """Never leave a dot child running after the app exits."""
    for job in list(_LIVE_JOBS):
        job.cancel()


class DotJob:
    """One ``dot`` layout running in a child process; a thread waits for it, the UI never does.

    ``on_done(positions, error)`` is called once, from the waiting thread, unless the job was
    cancelled first (then never). ``cancel()`` kills the child at once.
    """

    def __init__(
        self,
        graph: ViewGraph,
        spec: LayoutSpec,
        on_done: DotCallback,
        timeout: float = DOT_TIMEOUT,
    ) -> None:
        self._nodes, self._data = _payload(graph, spec)
        self._on_done = on_done
        self._timeout = timeout
        self._lock = threading.Lock()
        self._cancelled = False
        self._finished = False
        self._proc: subprocess.Popen[bytes] | None = None
        self._thread = threading.Thread(target=self._run, name="arbor-dot-layout", daemon=True)
        _LIVE_JOBS.add(self)
        self._thread.start()

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    @property
    def finished(self) -> bool:
        """The child is done and the result was (or is being) handed over."""
        return self._finished

    def cancel(self) -> None:
        """Kill the child (if it started) and drop its result."""
        with self._lock:
            self._cancelled = True
            proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.kill()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the job ended (tests and benchmarks only); ``False`` on timeout."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _run(self) -> None:
        try:
            positions, error = self._layout()
        except Exception as exc:  # never let the thread die silently
            positions, error = None, f"{type(exc).__name__}: {exc}"
        self._finished = True
        if not self._cancelled:
            self._on_done(positions, error)

    def _layout(self) -> tuple[Positions | None, str | None]:
        command = _worker_command()
        if command is None:
            return None, "dot layout is not available in this build (layout.WORKER_COMMAND unset)"
        with self._lock:
            if self._cancelled:
                return None, "cancelled"
            # Started here, not on the UI thread: even a fork of a large process costs time.
            self._proc = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        proc = self._proc
        try:
            out, err = proc.communicate(self._data, timeout=self._timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            return None, f"dot timed out after {self._timeout:.0f} s"
        if self._cancelled:
            return None, "cancelled"
        try:
            doc = json.loads(out.decode() or "{}")
        except ValueError:
            doc = {}
        if proc.returncode != 0 or "positions" not in doc:
            reason = (
                doc.get("error") or err.decode(errors="replace").strip()[-500:] or f"exit {proc.returncode}"
            )
            return None, f"dot failed: {reason}"
        coords = doc["positions"]
        if len(coords) != len(self._nodes):
            return None, "dot returned a different number of nodes"
        return {n: (float(x), float(y)) for n, (x, y) in zip(self._nodes, coords, strict=True)}, None


async def dot_layout_in_subprocess(
    graph: ViewGraph, spec: LayoutSpec = LayoutSpec(), timeout: float = DOT_TIMEOUT
) -> Positions:
    """``dot`` positions for ``graph``, computed in a child process; cancelling the await kills it.

    Raises :class:`LayoutError` if the child fails or times out.
    """
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Positions] = loop.create_future()

    def done(positions: Positions | None, error: str | None) -> None:
        loop.call_soon_threadsafe(_settle, future, positions, error)

    job = DotJob(graph, spec, done, timeout)
    try:
        return await future
    finally:
        job.cancel()  # no-op when it already finished


def _settle(future: asyncio.Future[Positions], positions: Positions | None, error: str | None) -> None:
    if future.done():
        return
    if positions is None:
        future.set_exception(LayoutError(error or "dot failed"))
    else:
        future.set_result(positions)


class Layouter:
    """One canvas's layouts: the tidy tree on demand, at most one ``dot`` child at a time.

    Either drive it with callbacks (:meth:`start_dot`, what the Qt view does, so it works with or
    without an asyncio loop) or ``await`` :meth:`layout` under asyncio/qasync. Any new request
    supersedes the running one: its child is killed and its awaiter gets :class:`LayoutSuperseded`.
    """

    def __init__(
        self,
        spec: LayoutSpec = LayoutSpec(),
        dot_node_limit: int | None = DOT_NODE_LIMIT,
        timeout: float = DOT_TIMEOUT,
    ) -> None:
        self.spec = spec
        self.dot_node_limit = dot_node_limit
        self.timeout = timeout
        self._job: DotJob | None = None
        self._future: asyncio.Future[Positions] | None = None
        #: What the last finished :meth:`layout` returned: ``"tidy"`` or ``"dot"``.
        self.last_kind = "none"

    def tidy(self, graph: ViewGraph) -> Positions:
        """The tidy-tree positions, synchronously (O(n); ~0.1 s for 20,000 nodes)."""
        return tidy_tree_layout(graph, self.spec)

    def wants_dot(self, graph: ViewGraph) -> bool:
        count = len(graph)
        return count > 1 and (self.dot_node_limit is None or count <= self.dot_node_limit)

    @property
    def busy(self) -> bool:
        job = self._job
        return job is not None and not job.cancelled and not job.finished

    @property
    def worker_pid(self) -> int | None:
        """The process id of the ``dot`` child while one runs (never this process's)."""
        job = self._job
        return job.pid if job is not None and self.busy else None

    def cancel(self) -> None:
        """Kill the running child, if any; a pending :meth:`layout` raises :class:`LayoutSuperseded`."""
        if self._job is not None:
            self._job.cancel()
            self._job = None
        if self._future is not None and not self._future.done():
            self._future.set_exception(LayoutSuperseded())
        self._future = None

    def start_dot(self, graph: ViewGraph, on_done: DotCallback, use_dot: bool = True) -> DotJob | None:
        """Supersede any running job and start ``dot`` for ``graph`` if it is small enough.

        Returns ``None`` (and never calls ``on_done``) when the tidy tree is final.
        """
        self.cancel()
        if not use_dot or not self.wants_dot(graph):
            return None
        self._job = DotJob(graph, self.spec, on_done, self.timeout)
        return self._job

    async def layout(self, graph: ViewGraph, use_dot: bool = True) -> Positions:
        """The best layout for ``graph``: ``dot``'s when it applies and succeeds, else the tidy tree.

        The tidy tree is computed first and is what a failed or skipped ``dot`` leaves.
        """
        self.cancel()
        tidy = self.tidy(graph)
        if not use_dot or not self.wants_dot(graph):
            self.last_kind = "tidy"
            return tidy
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Positions] = loop.create_future()

        def done(positions: Positions | None, error: str | None) -> None:
            loop.call_soon_threadsafe(_settle, future, positions, error)

        self._future = future
        self._job = DotJob(graph, self.spec, done, self.timeout)
        job = self._job
        try:
            positions = await future
            self.last_kind = "dot"
            return positions
        except LayoutError as exc:
            log.warning("dot layout failed, keeping the tidy tree: %s", exc)
            self.last_kind = "tidy"
            return tidy
        finally:
            job.cancel()
            if self._job is job:
                self._job = None
                self._future = None

    def close(self) -> None:
        self.cancel()


_shared: Layouter | None = None


async def layout(graph: ViewGraph, use_dot: bool = True) -> Positions:
    """``Layouter.layout`` on one shared layouter: a newer call supersedes (and kills) an older one.

    For one canvas, prefer an own :class:`Layouter` (what ``GraphView`` uses); the tidy tree is
    available synchronously from :func:`tidy_tree_layout`.
    """
    global _shared
    if _shared is None:
        _shared = Layouter()
    return await _shared.layout(graph, use_dot)
