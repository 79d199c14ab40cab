"""The chat asks ``session.kinds`` what a message or block is (issue 24 item 1): no kind strings
compared in its files, and the height estimates, stream blocks and odd roles read as before."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QListView

from desktop_app.ui.chat.delegate import MessageDelegate
from desktop_app.ui.chat.model import ChatModel
from tests import source
from tests.test_type_comparisons import PACKAGE, comparisons

from .conftest import assistant

CONVERTED = [
    "ui/chat/actions.py", "ui/chat/delegate.py", "ui/chat/model.py", "ui/graph/style.py", "ui/shell.py",
    "ui/steering.py",
]


@pytest.mark.parametrize("path", CONVERTED)
def test_no_kind_strings_compared(path: str) -> None:
    tree = source.tree(PACKAGE / path)
    assert comparisons(tree) == [], f"{Path(path).name} compares kind strings; ask session.kinds"


@pytest.fixture
def delegate(qtbot: Any) -> MessageDelegate:
    view = QListView()
    qtbot.addWidget(view)
    return MessageDelegate(view)


@pytest.mark.parametrize("odd", [7, None, True])
def test_odd_role_is_estimated_as_an_unknown_row(delegate: MessageDelegate, odd: Any) -> None:
    none: frozenset[int] = frozenset()
    unknown = delegate.estimate_height({"role": "weird", "content": "x"}, none, 600)
    assert delegate.estimate_height({"role": odd, "content": "x"}, none, 600) == unknown


def test_estimate_follows_blocks_and_stop_reason(delegate: MessageDelegate) -> None:
    none: frozenset[int] = frozenset()
    text = {"type": "text", "text": "a reply\n" * 30}
    thinking = {"type": "thinking", "thinking": "hm\n" * 30}
    plain = delegate.estimate_height(assistant([text]), none, 600)
    with_thinking = delegate.estimate_height(assistant([thinking, text]), none, 600)
    opened = delegate.estimate_height(assistant([thinking, text]), frozenset({0}), 600)
    failed = delegate.estimate_height(assistant([text], stop="error", error="boom"), none, 600)
    assert plain < with_thinking < opened  # a collapsed block is a line, an open one a dozen
    assert failed > plain  # room for the error line
    # A text block counts its text: a longer one is taller; an odd block is one line.
    longer = delegate.estimate_height(assistant([{"type": "text", "text": "a reply\n" * 60}]), none, 600)
    odd = delegate.estimate_height(assistant([text, {"type": 3}]), none, 600)
    assert longer > plain and odd > plain


def test_collapsed_bash_row_has_a_command_line_more_than_a_tool_result(delegate: MessageDelegate) -> None:
    none: frozenset[int] = frozenset()
    bash = delegate.estimate_height({"role": "bashExecution", "command": "ls", "output": "a"}, none, 600)
    tool = delegate.estimate_height(
        {"role": "toolResult", "content": [{"type": "text", "text": "a"}], "isError": False}, none, 600
    )
    assert bash == tool + delegate.line_height() + 4


def test_stream_deltas_grow_blocks_of_their_kind(qtbot: Any) -> None:
    model = ChatModel()
    model.append_delta("text", "Hel")
    model.append_delta("text", "lo")
    model.append_delta("toolcall", '{"pa')
    model.set_stream_tool_name("read")
    model.append_delta("toolcall", 'th": 1}')
    stream = model.stream_message()
    assert stream is not None
    assert stream["content"] == [
        {"type": "text", "text": "Hello"},
        {"type": "toolCall", "partialJson": '{"path": 1}', "name": "read", "arguments": None},
    ]
    assert all(type(block["type"]) is str for block in stream["content"])  # plain JSON strings
