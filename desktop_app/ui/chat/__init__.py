"""The chat panel: the context of the active leaf as a virtualized list, and the composer.

``model`` (rows, collapse state, the live row) is kept apart from the widgets (``delegate``,
``panel``); the display rules, testable without painting, are ``present.chat_messages`` and
``present.chat_render``.
"""

from .model import ChatModel, ChatRole
from .panel import ChatPanel, ChatView

__all__ = ["ChatModel", "ChatPanel", "ChatRole", "ChatView"]
