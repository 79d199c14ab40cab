"""What a tool returns and how it becomes pi's ``toolResult`` message.

A tool's ``execute`` returns :class:`ToolOutput` (pi's ``{content, details?}``) or raises
:class:`ToolError`; :func:`desktop_app.tools.run.run_tool` turns either into a
:class:`ToolResult`, whose :meth:`ToolResult.to_message` is the exact object pi writes to the session
file (keys ``role, toolCallId, toolName, content, details?, isError, timestamp`` in that order; a
failure always carries ``details: {}``, a success without details has no ``details`` key).
"""

from __future__ import annotations

import errno
from dataclasses import dataclass, field
from typing import Any

from desktop_app.session.kinds import BlockKind, block_kind

__all__ = ["ToolOutput", "ToolError", "ToolResult", "text_block", "node_error_message"]

Block = dict[str, Any]


def text_block(text: str) -> Block:
    return {"type": "text", "text": text}


@dataclass(frozen=True)
class ToolOutput:
    """A successful tool run: content blocks and optional ``details`` (``None`` = key left out)."""

    content: list[Block]
    details: dict[str, Any] | None = None

    @classmethod
    def text(cls, text: str, details: dict[str, Any] | None = None) -> ToolOutput:
        return cls([text_block(text)], details)


class ToolError(Exception):
    """A failed tool run; ``str(error)`` is the whole text the model sees (pi's thrown message)."""


@dataclass(frozen=True)
class ToolResult:
    """One finished tool call, ready to append to the session as a ``toolResult`` message."""

    tool_call_id: str
    tool_name: str
    content: list[Block]
    is_error: bool
    timestamp: int
    details: dict[str, Any] | None = field(default=None)

    @property
    def text(self) -> str:
        """The text blocks joined: what the chat shows as the result."""
        return "".join(str(b.get("text", "")) for b in self.content if block_kind(b) is BlockKind.TEXT)

    def to_message(self) -> dict[str, Any]:
        """pi's ``ToolResultMessage``, keys in the order pi writes them."""
        message: dict[str, Any] = {
            "role": "toolResult",
            "toolCallId": self.tool_call_id,
            "toolName": self.tool_name,
            "content": self.content,
        }
        if self.details is not None:
            message["details"] = self.details
        message["isError"] = self.is_error
        message["timestamp"] = self.timestamp
        return message


# Node's descriptions for the errno codes file tools meet (libuv's uv_strerror texts).
_NODE_TEXT = {
    errno.ENOENT: "no such file or directory",
    errno.EISDIR: "illegal operation on a directory",
    errno.ENOTDIR: "not a directory",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.EEXIST: "file already exists",
    errno.ENOSPC: "no space left on device",
    errno.EROFS: "read-only file system",
    errno.ELOOP: "too many symbolic links encountered",
    errno.ENAMETOOLONG: "name too long",
    errno.EMFILE: "too many open files",
    errno.EBUSY: "resource busy or locked",
    errno.EINVAL: "invalid argument",
    errno.EIO: "i/o error",
}


def node_error_code(exc: OSError) -> str:
    """``err.code`` as Node names it (``ENOENT``, ``EISDIR``...)."""
    return errno.errorcode.get(exc.errno or 0, "EUNKNOWN")


def node_error_message(exc: OSError, syscall: str, path: str | None = None) -> str:
    """Node's ``fs`` error text: ``ENOENT: no such file or directory, access '/abs/x'``.

    pi passes these through untouched, so the model reads the same words from Arbor.
    """
    code = node_error_code(exc)
    text = _NODE_TEXT.get(exc.errno or 0, (exc.strerror or "unknown error").lower())
    where = f"{syscall} '{path}'" if path is not None else syscall
    return f"{code}: {text}, {where}"

