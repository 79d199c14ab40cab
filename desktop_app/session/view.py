"""``SessionView``: the read-only face of a session that views (``present/``, ``ui/``) hold.

A view reads the tree and hears about changes; it never appends, moves the leaf or opens files:
those go through the agent's commands. :class:`~desktop_app.session.manager.SessionManager`
satisfies this protocol structurally (checked by mypy in ``tests/session/test_view.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .context import SessionContext
    from .events import Subscriber
    from .manager import OpenReport
    from .tree import SessionIndex, TreeNode

Entry = dict[str, Any]


class SessionView(Protocol):
    """What a view may read of a session. Returned entries are shared: read them, never change them."""

    @property
    def leaf_id(self) -> str | None: ...

    @property
    def session_file(self) -> str | None: ...

    @property
    def session_id(self) -> str: ...

    @property
    def cwd(self) -> str: ...

    @property
    def read_only(self) -> bool:
        """``True`` when the file could not be taken as a session (nothing will be written to it)."""
        ...

    @property
    def report(self) -> OpenReport:
        """What opening the file found: unreadable lines, a torn last line, a migration, an error."""
        ...

    @property
    def index(self) -> SessionIndex:
        """The live tree index, for views that lay out the whole tree (the graph). Read-only."""
        ...

    def get_entry(self, entry_id: str) -> Entry | None: ...

    def get_entries(self) -> list[Entry]: ...

    def get_branch(self, from_id: str | None = None) -> list[Entry]: ...

    def get_context_branch(self, from_id: str | None = None) -> list[Entry]:
        """The end of :meth:`get_branch` the context is built from (from the newest compaction's
        first kept entry): a few hundred entries where the branch may be 70,000."""
        ...

    def get_children(self, parent_id: str | None) -> list[Entry]: ...

    def get_label(self, entry_id: str) -> str | None: ...

    def get_session_name(self) -> str | None: ...

    def get_header(self) -> Entry: ...

    def get_tree(self) -> list[TreeNode]: ...

    def build_session_context(self, leaf_id: str | None = None) -> SessionContext: ...

    def subscribe(self, callback: Subscriber) -> Callable[[], None]: ...


__all__ = ["SessionView"]
