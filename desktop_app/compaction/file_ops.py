"""Files the agent read and changed, as pi tracks them across summaries (pi-spec §5.7 step 7, §5.8).

Summaries end with ``<read-files>``/``<modified-files>`` lists so a model that only sees the summary
still knows which files matter. Paths are kept exactly as the model wrote them; only ``read``, ``write``
and ``edit`` tool calls with a string ``path`` argument count. Lists are sorted the way JavaScript's
default sort orders strings: by UTF-16 code units, which differs from Python's code-point order once
astral characters meet U+E000–U+FFFF.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from desktop_app.session.entries import Message
from desktop_app.session.jsjson import js_join, js_string

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


def extract_file_ops(message: Message, ops: FileOperations | None = None) -> FileOperations:
    """Add the file operations of an assistant message's tool calls to ``ops`` (a new one if omitted)."""
    if ops is None:
        ops = FileOperations()
    if not isinstance(message, dict) or message.get("role") != "assistant":
        return ops
    content = message.get("content")
    if not isinstance(content, list):
        return ops
    for block in content:
        if not isinstance(block, dict) or block.get("type") != "toolCall":
            continue
        arguments = block.get("arguments")
        if not isinstance(arguments, dict):
            continue
        path = arguments.get("path")
        if not isinstance(path, str) or not path:
            continue
        name = block.get("name")
        if name == "read":
            ops.read[path] = None
        elif name == "write":
            ops.written[path] = None
        elif name == "edit":
            ops.edited[path] = None
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
