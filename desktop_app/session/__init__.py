"""pi's v3 session format, the entry tree and context building; pure Python, no Qt."""

from .context import SessionContext, build_session_context, convert_to_llm
from .events import EntryAppended, ExternalAppend, LeafMoved, Reloaded, SessionEvent, SessionFailed
from .manager import UNSET, OpenReport, SessionError, SessionManager, SessionReadOnlyError
from .store import SessionFileError
from .tree import SessionIndex, TreeNode
from .view import SessionView

__all__ = [
    "UNSET",
    "EntryAppended",
    "ExternalAppend",
    "LeafMoved",
    "OpenReport",
    "Reloaded",
    "SessionContext",
    "SessionError",
    "SessionEvent",
    "SessionFailed",
    "SessionFileError",
    "SessionIndex",
    "SessionManager",
    "SessionReadOnlyError",
    "SessionView",
    "TreeNode",
    "build_session_context",
    "convert_to_llm",
]
