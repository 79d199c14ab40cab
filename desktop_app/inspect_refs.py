"""Marker type shared by ``arbor inspect``'s section builders."""

from __future__ import annotations

from typing import Any


class MessageList(list[Any]):
    """Messages to be encoded as message-table refs (by object identity) in an inspect report."""
