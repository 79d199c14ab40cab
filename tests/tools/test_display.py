"""What each tool tells the rest of Arbor about a call of it, by name: the chat row's argument, the
opened view of its arguments, the file operation pi's compaction lists, the offline command form.
The chat's rows (ui/chat) showed exactly these before they moved into the tools' modules."""

from __future__ import annotations

from typing import Any

import pytest

from desktop_app.tools import (
    ALL_TOOLS,
    APPROVAL_TOOLS,
    DEFAULT_TOOLS,
    READ_ONLY_TOOLS,
    TOOLS,
    CallView,
    FileOp,
    call_view,
    command_arguments,
    file_op,
    get_tool,
    main_argument,
)
from desktop_app.tools.display import shown_text


def test_one_registry_in_pis_order() -> None:
    assert ALL_TOOLS == ("read", "bash", "edit", "write", "grep", "find", "ls")
    assert DEFAULT_TOOLS == ("read", "bash", "edit", "write")
    assert READ_ONLY_TOOLS == ("read", "grep", "find", "ls")
    assert APPROVAL_TOOLS == {"write", "edit", "bash"}
    assert all(TOOLS[name].name == name for name in ALL_TOOLS)


def test_the_argument_a_chat_row_shows() -> None:
    shown = {name: main_argument(name) for name in ALL_TOOLS}
    assert shown == {
        "read": "path", "write": "path", "edit": "path", "ls": "path",
        "bash": "command", "grep": "pattern", "find": "pattern",
    }
    assert main_argument("todo") is None and main_argument(None) is None and main_argument(["read"]) is None


@pytest.mark.parametrize(
    ("name", "arguments", "view"),
    [
        ("bash", {"command": "ls -la"}, CallView("ls -la", "bash")),
        ("bash", {"command": 3}, None),
        ("write", {"path": "a.py", "content": "x = 1\n"}, CallView("x = 1\n", None, "a.py")),
        ("write", {"content": ""}, CallView("", None, "")),
        ("write", {"path": "a.py"}, None),
        ("edit", {"path": "b.py", "edits": [{"oldText": "a\nb", "newText": "c"}, "junk", {"newText": 2}]},
         CallView("@@\n-a\n-b\n+c\n@@\n-\n+2", "diff", "b.py")),
        ("edit", {"path": ["odd"], "oldText": "x", "newText": None}, CallView("@@\n-x\n+", "diff", '["odd"]')),
        ("edit", {"path": "b.py", "edits": "not a list"}, None),
        ("read", {"path": "a.py"}, None),
        ("todo", {"command": "ls"}, None),
    ],
)
def test_the_opened_view_of_a_calls_arguments(name: str, arguments: dict[str, Any], view: CallView | None) -> None:
    assert call_view(name, arguments) == view


def test_shown_text_is_the_value_or_compact_json() -> None:
    assert shown_text("a") == "a" and shown_text(None) == "" and shown_text({"k": [1, "é"]}) == '{"k": [1, "é"]}'


def test_file_operations_by_name() -> None:
    assert {name: file_op(name) for name in ALL_TOOLS} == {
        "read": FileOp.READ, "write": FileOp.WRITTEN, "edit": FileOp.EDITED,
        "bash": None, "grep": None, "find": None, "ls": None,
    }
    assert file_op("Read") is None and file_op({"read": 1}) is None


def test_command_forms() -> None:
    assert command_arguments("read", " a.py\nmore") == {"path": "a.py"}
    assert command_arguments("ls", "") == {}
    assert command_arguments("write", " n.md\none\ntwo") == {"path": "n.md", "content": "one\ntwo"}
    assert command_arguments("bash", " echo 1\necho 2 ") == {"command": "echo 1\necho 2"}
    assert command_arguments("edit", " a.py") is None and command_arguments("todo", " x") is None
    assert [name for name in ALL_TOOLS if (spec := get_tool(name)) and spec.parse_command is None] == ["edit"]
