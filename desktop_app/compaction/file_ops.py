"""Files the agent read and changed, as pi tracks them across summaries (pi-spec §5.7 step 7, §5.8).

Summaries end with ``<read-files>``/``<modified-files>`` lists so a model that only sees the summary
still knows which files matter. Paths are kept exactly as the model wrote them; only calls with a
string ``path`` argument to the tools whose spec has a ``file_op`` (``read``, ``write``, ``edit``, by
name, as pi does for any file) count. Lists are sorted the way JavaScript's
default sort orders strings: by UTF-16 code units, which differs from Python's code-point order once
astral characters meet U+E000–U+FFFF.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, assert_never

from desktop_app.session.entries import Message
from desktop_app.session.jsjson import js_join, js_string
from desktop_app.session.kinds import BlockKind, Role, block_kind, role_of
from desktop_app.session.profile import PI_1_6_0, PiProfile
from desktop_app.tools.registry import file_op
from desktop_app.tools.spec import FileOp

__all__ = [
    "FileOperations",
    "FileLists",
    "extract_file_ops",
    "compute_file_lists",
    "format_file_operations",
    "js_sorted",
]


def _sort_key(value: Any) -> bytes:
    return js_string(value).encode("utf-16-be", "surrogatepass")


def js_sorted(items: Iterable[Any]) -> list[Any]:
    """``[...items].sort()``: compares ``String(item)`` by UTF-16 code units (stable)."""
    return sorted(items, key=_sort_key)


def _add_all(target: dict[Any, None], values: Iterable[Any]) -> None:
    for value in values:
        try:
            target[value] = None
        except TypeError:  # an object inside malformed details: unhashable here, never a path anyway
            continue


@dataclass
class FileOperations:
    """Three insertion-ordered sets (dicts with ``None`` values keep JavaScript's ``Set`` order)."""

    read: dict[str, None] = field(default_factory=dict)
    written: dict[str, None] = field(default_factory=dict)
    edited: dict[str, None] = field(default_factory=dict)

    def add_read(self, paths: Iterable[Any]) -> None:
        """Seed from a previous summary's ``details.readFiles`` (any JSON values, as pi's Set takes)."""
        _add_all(self.read, paths)

    def add_edited(self, paths: Iterable[Any]) -> None:
        """Seed from a previous summary's ``details.modifiedFiles``."""
        _add_all(self.edited, paths)

    def is_empty(self) -> bool:
        return not (self.read or self.written or self.edited)

    def to_json(self, sort: bool = False) -> dict[str, list[str]]:
        """``{read, written, edited}``; in insertion order, or JS-sorted when ``sort``."""
        order = js_sorted if sort else list
        return {"read": order(self.read), "written": order(self.written), "edited": order(self.edited)}


def _add_call(ops: FileOperations, name: Any, arguments: Any) -> None:
    """A call with a non-empty string ``path`` counts by its tool's name (pi's rule for any file)."""
    if not isinstance(arguments, dict):
        return
    path = arguments.get("path")
    if not isinstance(path, str) or not path:
        return
    match file_op(name):
        case FileOp.READ:
            ops.read[path] = None
        case FileOp.WRITTEN:
            ops.written[path] = None
        case FileOp.EDITED:
            ops.edited[path] = None
        case None:
            pass
        case _ as unreachable:
            assert_never(unreachable)


def extract_file_ops(
    message: Message, ops: FileOperations | None = None, profile: PiProfile = PI_1_6_0
) -> FileOperations:
    """Add the file operations of an assistant message's tool calls to ``ops`` (a new one if omitted).

    With the profile's ``nested_call_file_ops`` a tool result's ``nestedCalls`` (calls a codemode
    script made) count too, whatever their status; a call whose arguments were too big to keep
    (``argumentsBytes`` only) has no path.
    """
    if ops is None:
        ops = FileOperations()
    if not isinstance(message, dict):
        return ops
    role = role_of(message)
    if role is Role.TOOL_RESULT and profile.nested_call_file_ops:
        nested = message.get("nestedCalls")
        calls = nested.get("calls") if isinstance(nested, dict) else None
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, dict):
                _add_call(ops, call.get("name"), call.get("arguments"))
        return ops
    if role is not Role.ASSISTANT:
        return ops
    content = message.get("content")
    if not isinstance(content, list):
        return ops
    for block in content:
        if isinstance(block, dict) and block_kind(block) is BlockKind.TOOL_CALL:
            _add_call(ops, block.get("name"), block.get("arguments"))
    return ops


@dataclass(frozen=True)
class FileLists:
    """``computeFileLists``: files only read, and files written or edited; both JS-sorted."""

    read_files: list[str]
    modified_files: list[str]

    def to_json(self) -> dict[str, list[str]]:
        return {"readFiles": list(self.read_files), "modifiedFiles": list(self.modified_files)}


def compute_file_lists(ops: FileOperations) -> FileLists:
    """A file that was also changed is listed as modified only."""
    modified: dict[str, None] = dict.fromkeys(ops.edited)
    modified.update(dict.fromkeys(ops.written))
    read_only = [path for path in ops.read if path not in modified]
    return FileLists(js_sorted(read_only), js_sorted(modified))


def format_file_operations(read_files: list[str], modified_files: list[str]) -> str:
    """The tail pi appends to a summary: ``"\\n\\n<read-files>…"``, or ``""`` when there are none."""
    sections: list[str] = []
    if read_files:
        sections.append("<read-files>\n" + js_join(read_files, "\n") + "\n</read-files>")
    if modified_files:
        sections.append("<modified-files>\n" + js_join(modified_files, "\n") + "\n</modified-files>")
    if not sections:
        return ""
    return "\n\n" + "\n\n".join(sections)
