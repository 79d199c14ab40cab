"""Sibling arrows in the chat, "‹ 2/3 ›": where the active path branches, step to another branch.

At every branch point on the active path (an entry with more than one child), the child the path
goes through is sibling ``k`` of ``n`` (children in file order, which is the order they were
made). The arrows sit on the first message of that child's branch that the chat shows, and step to
the previous or next sibling's *newest leaf* (the leaf of its subtree written last) — the habit
ChatGPT and LibreChat taught. No Qt: the chat panel places the arrows on the row holding ``message``.

An arrow flips at once, as in ChatGPT (issue 22 item 8): no question first. Instead the branch just
left is *offered* a summary (:func:`flip_offer`) in a bar that blocks nothing, with Undo; the canvas's
drag and double-click keep pi's question.
"""

from __future__ import annotations

from collections.abc import Collection, Generator
from dataclasses import dataclass, field
from typing import Any

from desktop_app.session import SessionView
from desktop_app.session.kinds import EntryKind, kind_of, message_of

__all__ = [
    "FlipOffer",
    "SiblingCache",
    "SiblingSwitch",
    "flip_offer",
    "newest_leaf",
    "sibling_switches",
    "sibling_switches_in_steps",
]

#: Entries a stepped walk (:func:`sibling_switches_in_steps`) visits between two yields (~1 ms).
STEP = 2_000

#: What a stepped computation yields between its slices (nothing: it only gives the caller a turn).
Steps = Generator[None, None, "list[SiblingSwitch]"]


@dataclass(frozen=True)
class SiblingSwitch:
    """The arrows of one branch point, on the chat row showing ``message`` (the same object)."""

    message: Any
    entry_id: str  #: the entry whose message carries the arrows
    index: int  #: 1-based position of the active branch among its siblings
    count: int
    previous_leaf: str | None  #: where ‹ goes (``None``: first sibling)
    next_leaf: str | None  #: where › goes (``None``: last sibling)

    @property
    def text(self) -> str:
        return f"{self.index}/{self.count}"


@dataclass
class SiblingCache:
    """What :func:`sibling_switches` may reuse: file positions and newest leaves (a branch near the
    root of a 100,000-entry session has a 70,000-entry subtree to search). Keep one per session view.

    Appends keep it: a new entry is the file's newest leaf, so it becomes the newest leaf of exactly
    the cached subtrees it lies in (:meth:`check` finds them by walking up from its parent until an
    entry older than every cached subtree, or an entry appended earlier whose subtrees it noted), and
    nothing else changes. While a reply streams, each append costs O(1) instead of a new search of
    every subtree. Anything but a pure append (fewer entries, a different file) starts it afresh."""

    entries: int = -1
    last: str | None = None  #: id of the entry at position ``entries - 1`` (same file, only grown?)
    order: dict[str, int] = field(default_factory=dict)
    newest: dict[str, str] = field(default_factory=dict)
    #: entries appended since the cache was filled → the cached subtrees (keys of ``newest``) holding them
    under: dict[str, frozenset[str]] = field(default_factory=dict)
    #: the active path (root → ``leaf``)
    leaf: str | None = None
    path: list[Any] | None = None

    def check(self, view: SessionView) -> None:
        entries = view.index.entries  # not get_entries(): a copy of 100,000 entries each time
        count = len(entries)
        last = str(entries[-1].get("id")) if entries else None
        if count == self.entries and last == self.last:
            return
        grown = 0 <= self.entries < count and (
            self.entries == 0 or str(entries[self.entries - 1].get("id")) == self.last
        )
        if grown:
            for n in range(self.entries, count):
                self._appended(view, entries[n], n)
        else:
            self.order, self.newest, self.under, self.path = {}, {}, {}, None
        self.entries, self.last = count, last

    def branch(self, view: SessionView) -> list[Any]:
        """The active path, kept: the leaf moving to a child of the old leaf (an append, above all)
        extends it, anything else walks it again (72,000 entries at 100k: ~40 ms)."""
        path: list[Any] = _drain(self.branch_in_steps(view, 0))
        return path

    def branch_in_steps(self, view: SessionView, every: int | None = None) -> Generator[None, None, list[Any]]:
        """:meth:`branch`, yielding every ``every`` entries of a walk (``0``: never; ``None``: :data:`STEP`)."""
        every = STEP if every is None else every
        leaf = view.leaf_id
        path = self.path
        if path is not None and leaf == self.leaf:
            return path
        tail = self._tail(view, leaf) if path is not None else None
        if tail is not None:
            for entry in reversed(tail):
                self._extend(entry)
        elif every:
            self.path = yield from _branch_in_steps(view, leaf, every)
        else:  # in comprehensions: a far switch at 100k walks 72,000 entries (50 ms a call each)
            self.path = list(view.get_branch())
        self.leaf = leaf
        assert self.path is not None
        return self.path

    def _tail(self, view: SessionView, leaf: str | None, most: int = 64) -> list[Any] | None:
        """The entries from just below the old leaf down to ``leaf`` (newest first), when ``leaf``
        descends from the old leaf within ``most`` steps (a turn appends a few entries at once)."""
        if leaf is None or self.leaf is None:
            return None
        tail: list[Any] = []
        current: str | None = leaf
        while current is not None and current != self.leaf and len(tail) < most:
            entry = view.get_entry(current)
            if entry is None:
                return None
            tail.append(entry)
            up = entry.get("parentId")
            current = None if up is None else str(up)
        return tail if current == self.leaf and tail else None

    def _extend(self, entry: Any) -> None:
        assert self.path is not None
        self.path.append(entry)

    def first_shown(self, shown: Collection[int]) -> int:
        """The path position of the first message whose ``id()`` is in ``shown`` (``len(path)``:
        none), read from the leaf up. The chat shows the context: after the newest compaction on
        the path nothing above its first kept entry, so the walk stops there (the summary and other
        messages made for the context are no entry's: they are never found), a few hundred entries
        at 100,000; a map of all 72,000 messages' positions was ~6 MB kept for this."""
        assert self.path is not None
        path, wanted, first = self.path, set(shown), len(self.path)
        compaction = EntryKind.COMPACTION
        kept_from: Any = None
        for i in range(len(path) - 1, -1, -1):
            entry = path[i]
            message = entry.get("message")
            if message is not None and id(message) in wanted:
                first = i
                wanted.discard(id(message))
                if not wanted:
                    break
            if kept_from is None and kind_of(entry) is compaction:
                kept_from = entry.get("firstKeptEntryId")
            if kept_from is not None and entry.get("id") == kept_from:
                break
        return first

    def remember(self, entry_id: str, leaf: str) -> None:
        """A newly searched subtree: the notes of which subtrees hold which appended entry are stale."""
        self.newest[entry_id] = leaf
        self.under.clear()

    def _appended(self, view: SessionView, entry: Any, position: int) -> None:
        entry_id = str(entry.get("id"))
        if self.order:
            self.order[entry_id] = position
        if not self.newest:
            return
        holders = self._holders(view, entry.get("parentId"))
        for key in holders:
            self.newest[key] = entry_id  # a childless entry written last: the newest leaf there
        self.under[entry_id] = holders

    def _holders(self, view: SessionView, parent: Any) -> frozenset[str]:
        """The cached subtrees holding ``parent`` (and so its new child). A parent is written before
        its child, so the walk stops at the first entry older than every cached subtree's root."""
        order, newest = self.order, self.newest
        oldest = min((order.get(k, -1) for k in newest), default=-1)
        found: set[str] = set()
        current = None if parent is None else str(parent)
        seen: set[str] = set()
        while current is not None and current not in seen:
            seen.add(current)
            noted = self.under.get(current)
            if noted is not None:
                found |= noted
                break
            if current in newest:
                found.add(current)
            if order and order.get(current, -1) < oldest:
                break
            entry = view.get_entry(current)
            up = entry.get("parentId") if entry is not None else None
            current = None if up is None else str(up)
        return frozenset(found)


def _drain(steps: Generator[None, None, Any]) -> Any:
    """Run a stepped computation to its end at once; its result."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value


def _branch_in_steps(view: SessionView, leaf: str | None, every: int) -> Generator[None, None, list[Any]]:
    """``view.get_branch()`` (root → ``leaf``), walked up ``every`` entries per step. Anything a
    plain walk of string ids cannot answer as ``get_branch`` does (an id that is not a string, a
    cycle) is left to ``get_branch`` itself."""
    path: list[Any] = []
    most = len(view.index.entries)
    current: Any = leaf
    while current:  # as get_branch: a missing or falsy parent ends the path
        if not isinstance(current, str) or len(path) > most:
            return list(view.get_branch())
        entry = view.get_entry(current)
        if entry is None:
            break
        path.append(entry)
        if len(path) % every == 0:
            yield
        current = entry.get("parentId")
    path.reverse()
    return path


def newest_leaf(view: SessionView, entry_id: str, order: dict[str, int]) -> str:
    """The leaf of ``entry_id``'s subtree that was written last (``order``: entry id → file position)."""
    found: str = _drain(newest_leaf_in_steps(view, entry_id, order, 0))
    return found


def newest_leaf_in_steps(
    view: SessionView, entry_id: str, order: dict[str, int], every: int | None = None
) -> Generator[None, None, str]:
    """:func:`newest_leaf`, yielding every ``every`` entries of the subtree (``0``: never; ``None``: :data:`STEP`)."""
    every = STEP if every is None else every
    best, best_at = entry_id, -1
    stack = [entry_id]
    seen: set[str] = set()
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        children = [str(c.get("id")) for c in view.get_children(current)]
        if not children and order.get(current, -1) > best_at:
            best, best_at = current, order.get(current, -1)
        stack.extend(children)
        if every and len(seen) % every == 0:
            yield
    return best


def sibling_switches(
    view: SessionView, shown: Collection[int] | None = None, cache: SiblingCache | None = None
) -> list[SiblingSwitch]:
    """The arrows for the active path, top to bottom (empty when the path never branches).

    ``shown``: the ``id()`` of every message object the chat shows; a switch whose message is not
    among them is skipped before its newest leaves are searched (a 100,000-entry path branches
    ~2,700 times, the chat since the last compaction shows a few of them).
    """
    found: list[SiblingSwitch] = _drain(sibling_switches_in_steps(view, shown, cache, 0))
    return found


def sibling_switches_in_steps(
    view: SessionView,
    shown: Collection[int] | None = None,
    cache: SiblingCache | None = None,
    every: int | None = None,
) -> Steps:
    """:func:`sibling_switches` in slices: a generator that yields after every ``every`` entries
    it walks (the active path, the file's order, a sibling's subtree; ``0``: never) and returns
    the switches. At 100,000 entries the whole computation took ~0.45 s on the UI thread after the
    first picture (issue 28); its caller runs a slice per event-loop turn. The session must not
    change between two slices (the caller starts again if it does); the cache keeps what each
    finished part found. ``every=None``: :data:`STEP`."""
    every = STEP if every is None else every
    if cache is None:
        cache = SiblingCache()
    cache.check(view)
    path = yield from cache.branch_in_steps(view, every)

    def ids(i: int) -> str:
        return str(path[i].get("id"))

    start = 0
    if shown is not None:  # no carrier above the first shown message but the branch point just above it
        first = cache.first_shown(shown)
        start = next((i for i in range(first - 1, -1, -1) if len(view.get_children(ids(i))) > 1), 0)
    points = [i for i in range(start, len(path) - 1) if len(view.get_children(ids(i))) > 1]
    if not points:
        return []
    order, newest = cache.order, cache.newest

    def newest_of(entry_id: str) -> Generator[None, None, str]:
        if entry_id not in newest:
            if not order:
                entries = view.index.entries
                for start in range(0, len(entries), every or len(entries) or 1):
                    chunk = entries[start : start + every] if every else entries
                    order.update((str(e.get("id")), start + n) for n, e in enumerate(chunk))
                    if every:
                        yield
            if every:
                cache.remember(entry_id, (yield from newest_leaf_in_steps(view, entry_id, order, every)))
            else:
                cache.remember(entry_id, newest_leaf(view, entry_id, order))
        return newest[entry_id]

    switches: list[SiblingSwitch] = []
    for at, i in enumerate(points):
        siblings = [str(c.get("id")) for c in view.get_children(ids(i))]
        active = ids(i + 1)
        if active not in siblings:
            continue
        k = siblings.index(active)
        end = points[at + 1] + 1 if at + 1 < len(points) else len(path)
        carrier = next(
            (path[j] for j in range(i + 1, end) if message_of(path[j]) is not None),
            None,
        )
        if carrier is None or (shown is not None and id(carrier["message"]) not in shown):
            continue
        switches.append(
            SiblingSwitch(
                message=carrier["message"],
                entry_id=str(carrier.get("id")),
                index=k + 1,
                count=len(siblings),
                previous_leaf=(yield from newest_of(siblings[k - 1])) if k > 0 else None,
                next_leaf=(yield from newest_of(siblings[k + 1])) if k + 1 < len(siblings) else None,
            )
        )
    return switches


@dataclass(frozen=True)
class FlipOffer:
    """After a flip by the sibling arrows: the branch left at ``left_leaf`` may still be summarized
    (pi's "Summarize" answer, given afterwards: back to ``left_leaf``, then to ``target`` with a
    summary), or the flip undone."""

    left_leaf: str
    target: str
    text: str = "Switched branch. Summarize the branch you left?"


def flip_offer(left_leaf: str | None, target: str, skip_prompt: bool) -> FlipOffer | None:
    """The offer to show after the arrows flipped from ``left_leaf`` to ``target``; ``None`` when the
    user chose never to be asked (``branchSummary.skipPrompt``) or nothing was left."""
    if skip_prompt or left_leaf is None or left_leaf == target:
        return None
    return FlipOffer(left_leaf, target)
