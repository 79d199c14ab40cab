"""What a :class:`~desktop_app.session.manager.SessionManager` tells its subscribers (typed, frozen).

One dataclass per kind of change, joined in the :data:`SessionEvent` union, so a consumer handles
them with ``match`` and ``typing.assert_never`` and a new kind is a type error until it is handled.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeAlias


@dataclass(frozen=True)
class EntryAppended:
    """This process appended ``entry``; ``leaf_id`` is the leaf afterwards (the entry's id)."""

    entry: dict[str, Any]
    leaf_id: str | None


@dataclass(frozen=True)
class ExternalAppend:
    """Entries another program appended to the file, read while following it.

    ``leaf_id`` is the leaf afterwards: it follows the other writer only when it appended on our branch.
    """

    entries: tuple[dict[str, Any], ...]
    leaf_id: str | None


@dataclass(frozen=True)
class LeafMoved:
    """The leaf moved without an append (navigation, ``reset_leaf``)."""

    leaf_id: str | None
    previous_leaf_id: str | None


@dataclass(frozen=True)
class Reloaded:
    """The whole tree was read again (file replaced, truncated or rewritten; a new branched session)."""

    leaf_id: str | None


@dataclass(frozen=True)
class SessionFailed:
    """Something the window should show: a write failed, the file vanished, lines were unreadable."""

    message: str


SessionEvent: TypeAlias = EntryAppended | ExternalAppend | LeafMoved | Reloaded | SessionFailed
Subscriber: TypeAlias = Callable[[SessionEvent], None]

__all__ = [
    "EntryAppended",
    "ExternalAppend",
    "LeafMoved",
    "Reloaded",
    "SessionEvent",
    "SessionFailed",
    "Subscriber",
]
