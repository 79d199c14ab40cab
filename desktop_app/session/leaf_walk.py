"""Contexts at every entry of one session, each grown from its parent's (``arbor inspect``).

``arbor inspect`` reports the context the model would see with the leaf at each entry. Built one by
one, each is a walk to the root: on a path of n entries that is n walks of up to n steps (a
1,000-entry session, half a million steps). Moving the leaf down to a child adds at most one message,
so :class:`LeafWalk` keeps the context of every entry it has answered and grows a child's from its
parent's with :func:`~.context.extend_context`, which is exactly one step of the path's build.

That step is only taken where it gives what a fresh build gives:

* the entry's path is *plain*: its ``parentId`` chain ends without a cycle or an id the index keys
  apart (``true``, a list). Only then is its path its parent's path and itself; elsewhere the
  careful walk (:meth:`~.tree.SessionIndex.path_to`) decides and the context is built fresh;
* the entry is not the target of a ``context_edit`` (an edit above it on the path would change
  what it adds; pi 1.6.0 applies every edit on the path to every entry it targets);
* :func:`~.context.extend_context` can tell (not a compaction, branch summary or edit).

The index must not change while a walk is in use: the kept contexts would be stale.
"""

from __future__ import annotations

from typing import Any

from .context import SessionContext, build_session_context, edit_key, extend_context
from .entries import Entry
from .profile import PiProfile
from .tree import SessionIndex, key_of


class LeafWalk:
    """Contexts (and plain parents, for other per-path answers) at many leaves of one index."""

    def __init__(self, index: SessionIndex, profile: PiProfile) -> None:
        self._index = index
        self._profile = profile
        self._contexts: dict[int, SessionContext] = {}  # id(entry) -> its context
        self._grown_from: dict[int, SessionContext] = {}  # id(entry) -> the parent's context it grew from
        self._plain: dict[int, bool] = {}
        self._edit_targets: set[Any] = (
            {edit_key(e.get("targetId")) for e in index.entries if e.get("type") == "context_edit"}
            if profile.context_projection
            else set()
        )

    def leaf(self, leaf_id: Any) -> Entry | None:
        """The entry ``build_session_context`` takes for ``leaf_id``: ``None`` for no leaf, the last
        entry for a falsy or unknown id (JavaScript's ``leafId ? byId.get(leafId) : last``)."""
        entries = self._index.entries
        if leaf_id is None or not entries:
            return None
        found = self._index.by_id.get(key_of(leaf_id)) if leaf_id else None
        return found if found is not None else entries[-1]

    def context_at(self, leaf_id: Any) -> SessionContext:
        """``build_session_context(index.entries, leaf_id, index, profile=...)``, from the parent's
        context where it has one (see the module's docstring)."""
        leaf = self.leaf(leaf_id)
        if leaf is None:
            return SessionContext()
        known = self._contexts.get(id(leaf))
        if known is not None:
            return known
        context: SessionContext | None = None
        parent = self.plain_parent(leaf)
        if parent is not None and edit_key(leaf.get("id")) not in self._edit_targets:
            above = self._contexts.get(id(parent))
            if above is not None:
                context = extend_context(above, leaf, profile=self._profile)
                if context is not None:
                    self._grown_from[id(leaf)] = above
        if context is None:
            context = build_session_context(self._index.entries, leaf_id, self._index, profile=self._profile)
        self._contexts[id(leaf)] = context
        return context

    def grown_from(self, leaf_id: Any) -> SessionContext | None:
        """The context :meth:`context_at` grew ``leaf_id``'s from (its parent's), ``None`` where it
        built it afresh. The grown one has the same ``messages`` list, or that list and one message
        more (:func:`~.context.extend_context`): a caller can grow what it derives from them alike."""
        leaf = self.leaf(leaf_id)
        return self._grown_from.get(id(leaf)) if leaf is not None else None

    def plain_parent(self, entry: Entry) -> Entry | None:
        """The parent whose path ``entry``'s path extends by ``entry`` alone, when the path is plain;
        ``None`` for a root and for an entry whose path is not plain."""
        if not self.is_plain(entry):
            return None
        return self._step(entry)[0]

    def is_plain(self, entry: Entry) -> bool:
        """Whether the walk from ``entry`` to the root ends without a cycle or an odd ``parentId``
        (then every path and context walk up takes the quick way, and a path is its parent's path
        and the entry). Each entry is decided once; a chain is followed only up to a decided entry."""
        plain = self._plain
        chain: list[Entry] = []
        on_chain: set[int] = set()
        current: Entry | None = entry
        result = True
        while current is not None:
            decided = plain.get(id(current))
            if decided is not None:
                result = decided
                break
            if id(current) in on_chain:  # a cycle: no entry leading into it has a plain path
                result = False
                break
            chain.append(current)
            on_chain.add(id(current))
            current, ok = self._step(current)
            if not ok:
                result = False
                break
        for walked in chain:
            plain[id(walked)] = result
        return result

    def _step(self, entry: Entry) -> tuple[Entry | None, bool]:
        """(the parent a walk up goes to, ``None`` at a root; whether the quick walk can take the step),
        as :func:`~.context._walk_up` and :meth:`~.tree.SessionIndex.path_to` step: a falsy
        ``parentId`` or one not in the index ends the path; ``true`` or an unhashable one needs the
        careful walk."""
        parent = entry.get("parentId")
        if not parent:
            return None, True
        if parent is True:
            return None, False
        try:
            return self._index.by_id.get(parent), True
        except TypeError:
            return None, False
