"""The chat panel: the context of the active leaf as a virtualized list, and the composer.

``model`` (rows, collapse state, the live row) is kept apart from the widgets (``delegate``,
``panel``); ``messages`` and ``render`` are the display rules, testable without painting.
"""

from .model import ChatModel, ChatRole
from .panel import ChatPanel, ChatView

__all__ = ["ChatModel", "ChatPanel", "ChatRole", "ChatView"]
