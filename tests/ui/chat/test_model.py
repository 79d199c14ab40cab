"""ChatModel on its own: rows, hidden count, collapse state, the live row's signals."""

from __future__ import annotations

from typing import Any

import pytest

from desktop_app.ui.chat.model import ChatModel, ChatRole

from .conftest import assistant, every_kind


def test_rows_and_hidden_count(qtbot: Any) -> None:
    model = ChatModel()
    messages = every_kind()
    model.set_messages(messages)
    assert model.rowCount() == len(messages) - 1 and model.hidden_count == 1
    assert model.messages() == [m for m in messages if m.get("customType") != "secret"]
    model.set_messages([])
    assert model.rowCount() == 0 and model.hidden_count == 0


def test_set_messages_is_one_reset(qtbot: Any) -> None:
    model = ChatModel()
    with qtbot.waitSignal(model.modelReset, timeout=100):
        model.set_messages(every_kind())


def test_collapse_roles_and_set_data(qtbot: Any) -> None:
    model = ChatModel()
    model.set_messages(every_kind())
    row = next(r for r in range(model.rowCount()) if model.message(r).get("stopReason") == "toolUse")
    index = model.index(row)
    assert model.data(index, ChatRole.Collapsed) is True
    assert model.setData(index, False, ChatRole.Collapsed)
    assert model.data(index, ChatRole.ExpandedSections) == frozenset({0, 2})  # thinking and tool call
    assert model.setData(index, True, ChatRole.Collapsed)
    assert model.data(index, ChatRole.ExpandedSections) == frozenset()
    user_row = next(r for r in range(model.rowCount()) if model.message(r)["role"] == "user")
    assert model.data(model.index(user_row), ChatRole.Collapsed) is False  # nothing to collapse


def test_deltas_signal_stream_updated_not_data_changed(qtbot: Any) -> None:
    """QListView relayouts every row on dataChanged; deltas must not cost that (model docstring)."""
    model = ChatModel()
    model.set_messages(every_kind())
    changed: list[Any] = []
    updated: list[int] = []
    model.dataChanged.connect(lambda *args: changed.append(args))
    model.stream_updated.connect(updated.append)
    model.append_delta("text", "no begin_stream needed")  # starts the live row
    model.append_delta("text", "!")
    assert model.is_streaming and model.stream_row() == model.rowCount() - 1
    assert updated == [model.rowCount() - 1] * 2 and changed == []
    assert model.data(model.index(model.rowCount() - 1), ChatRole.Revision) >= 2
    model.end_stream(assistant([{"type": "text", "text": "done"}]))
    assert len(changed) == 1 and not model.is_streaming


def test_unknown_delta_kind_is_refused(qtbot: Any) -> None:
    with pytest.raises(ValueError):
        ChatModel().append_delta("image", "x")  # type: ignore[arg-type]


def test_abort_keeps_an_error_status(qtbot: Any) -> None:
    model = ChatModel()
    model.begin_stream()
    failed = assistant([], stop="error", error="overloaded")
    model.abort_stream(failed)
    assert model.data(model.index(0), ChatRole.Status) == "error"


def test_abort_marks_a_copy_not_the_callers_message(qtbot: Any) -> None:
    model = ChatModel()
    model.begin_stream()
    partial = assistant([{"type": "text", "text": "x"}], stop="stop")
    model.abort_stream(partial)
    assert partial["stopReason"] == "stop"
    assert model.message(0)["stopReason"] == "aborted"


def test_summary_state_is_keyed_by_content(qtbot: Any) -> None:
    model = ChatModel()
    card = {"role": "compactionSummary", "summary": "s", "tokensBefore": 1, "timestamp": 5}
    model.set_messages([card])
    model.toggle(0)
    model.set_messages([dict(card)])
    assert not model.is_collapsed(0)
    model.set_messages([{**card, "summary": "another compaction"}])
    assert model.is_collapsed(0)
