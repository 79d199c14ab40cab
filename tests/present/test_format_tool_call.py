"""pi's ``formatToolCall`` for every built-in tool and for others (pi-spec §6.2: a tool result's
line in ``/tree``). Pinned here so the texts stay the same wherever each tool's formatting lives."""

from __future__ import annotations

import os
from typing import Any

import pytest

from desktop_app.present.text import format_tool_call

HOME = os.path.expanduser("~")


@pytest.mark.parametrize(
    ("name", "arguments", "text"),
    [
        ("read", {"path": "src/app.py"}, "[read: src/app.py]"),
        ("read", {"file_path": f"{HOME}/p/file.ts", "offset": 10, "limit": 20}, "[read: ~/p/file.ts:10-29]"),
        ("read", {"path": "a.py", "limit": 5}, "[read: a.py:1-5]"),
        ("read", {"path": "a.py", "offset": 7}, "[read: a.py:7]"),
        ("read", {"path": "a.py", "offset": 2, "limit": 1.5}, "[read: a.py:2-2.5]"),
        ("read", {}, "[read: ]"),
        ("write", {"path": f"{HOME}/notes.md", "content": "x"}, "[write: ~/notes.md]"),
        ("edit", {"file_path": "b.py", "edits": []}, "[edit: b.py]"),
        ("bash", {"command": "ls\t-la\n"}, "[bash: ls -la]"),
        ("bash", {"command": "x" * 51}, "[bash: " + "x" * 50 + "...]"),
        ("grep", {"pattern": "TODO"}, "[grep: /TODO/ in .]"),
        ("grep", {"pattern": "a|b", "path": f"{HOME}/src"}, "[grep: /a|b/ in ~/src]"),
        ("find", {"pattern": "*.py", "path": "src"}, "[find: *.py in src]"),
        ("find", {"pattern": True}, "[find: true in .]"),
        ("ls", {}, "[ls: .]"),
        ("ls", {"path": "docs"}, "[ls: docs]"),
        ("ls", "not an object", "[ls: .]"),
        ("todo", {"items": [1, 2]}, '[todo: {"items":[1,2]}]'),
        ("todo", {"text": "y" * 40}, '[todo: {"text":"' + "y" * 31 + '...]'),
    ],
)
def test_each_tool_call_reads_as_pi_shows_it(name: str, arguments: Any, text: str) -> None:
    assert format_tool_call(name, arguments) == text
