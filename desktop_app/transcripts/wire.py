"""Claude Code's own vocabulary: the line and content-block types of its transcripts.

Not pi's kinds (those are asked of :mod:`desktop_app.session.kinds`): a transcript is the Anthropic
API's wire format plus Claude Code's bookkeeping lines (``claude-code-format.md`` §1, §3). Named
here once, so the reader and the converter compare with names, never with loose strings.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Block", "Line", "COMPACT_BOUNDARY"]


class Line(StrEnum):
    """A transcript line's ``type``."""

    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"
    ATTACHMENT = "attachment"
    PROGRESS = "progress"
    SUMMARY = "summary"
    LAST_PROMPT = "last-prompt"
    AI_TITLE = "ai-title"
    CUSTOM_TITLE = "custom-title"
    FILE_HISTORY_SNAPSHOT = "file-history-snapshot"
    QUEUE_OPERATION = "queue-operation"
    PI_SESSION = "session"
    """Not Claude Code's: a pi header, which tells a pi file from a transcript."""


class Block(StrEnum):
    """A content block's ``type`` (the Anthropic Messages API's)."""

    TEXT = "text"
    THINKING = "thinking"
    REDACTED_THINKING = "redacted_thinking"
    TOOL_USE = "tool_use"
    TOOL_RESULT = "tool_result"
    IMAGE = "image"


COMPACT_BOUNDARY = "compact_boundary"
"""The ``subtype`` of the ``system`` line Claude Code writes where it compacted."""
