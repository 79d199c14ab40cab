"""pi's v3 session format, the entry tree and context building; pure Python, no Qt."""

from .context import SessionContext, build_session_context, convert_to_llm
from .manager import SessionError, SessionEvent, SessionManager, SessionReadOnlyError
from .store import SessionFileError
from .tree import SessionIndex, TreeNode

__all__ = [
    "SessionContext",
    "SessionError",
    "SessionEvent",
    "SessionFileError",
    "SessionIndex",
    "SessionManager",
    "SessionReadOnlyError",
    "TreeNode",
    "build_session_context",
    "convert_to_llm",
]
