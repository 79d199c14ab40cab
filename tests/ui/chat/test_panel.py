"""ChatPanel behaviour: collapsible cards and sections, composer keys, banners, streaming."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QImage

from desktop_app.ui.chat import ChatPanel, ChatRole
from desktop_app.ui.chat.model import ChatModel

from .conftest import assistant, every_kind


@pytest.fixture
def panel(qtbot: Any) -> ChatPanel:
    widget = ChatPanel()
    qtbot.addWidget(widget)
    widget.resize(600, 900)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def _row_of(model: ChatModel, kind: str) -> int:
    for row in range(model.rowCount()):
        if model.data(model.index(row), ChatRole.Kind) == kind:
            return row
    raise AssertionError(f"no {kind} row")


def _click(qtbot: Any, panel: ChatPanel, point: QPoint) -> None:
    qtbot.mouseClick(panel.view.viewport(), Qt.MouseButton.LeftButton, pos=point)


def _click_section(qtbot: Any, panel: ChatPanel, row: int, section: int) -> None:
    index = panel.model.index(row)
    panel.view.scrollTo(index)
    rect = panel.delegate.section_rect(panel.model, row, panel.view.visualRect(index), section)
    assert rect is not None, f"no toggle line for section {section} of row {row}"
    _click(qtbot, panel, QPoint(rect.left() + 30, rect.center().y()))


def _doc_text(panel: ChatPanel, row: int) -> str:
    return panel.delegate.document(panel.model, row).toPlainText()


# ==================================================================================== cards


@pytest.mark.parametrize(
    ("kind", "title"),
    [("compactionSummary", "Compacted from 123,456 tokens"), ("branchSummary", "Branch summary")],
)
def test_summary_cards_start_collapsed_and_toggle_on_click(
    panel: ChatPanel, qtbot: Any, kind: str, title: str
) -> None:
    panel.set_context(every_kind())
    model = panel.model
    row = _row_of(model, kind)
    index = model.index(row)
    summary = model.message(row)["summary"]
    assert model.data(index, ChatRole.Collapsed) is True
    text = _doc_text(panel, row)
    assert title in text and summary.splitlines()[-1] not in text

    panel.view.scrollTo(index)
    rect = panel.view.visualRect(index)
    _click(qtbot, panel, QPoint(rect.center().x(), rect.top() + rect.height() // 2))  # anywhere on the card
    assert model.data(index, ChatRole.Collapsed) is False
    assert "Ship the" in _doc_text(panel, row) or "abandoned" in _doc_text(panel, row)

    _click_section(qtbot, panel, row, 0)  # its header line collapses it again
    assert model.data(index, ChatRole.Collapsed) is True


def test_expanded_card_grows_its_row(panel: ChatPanel, qtbot: Any) -> None:
    long_summary = "\n\n".join(f"Paragraph {i} of the summary." for i in range(30))
    panel.set_context(
        [{"role": "compactionSummary", "summary": long_summary, "tokensBefore": 5, "timestamp": 0}]
    )
    qtbot.wait(20)
    before = panel.view.visualRect(panel.model.index(0)).height()
    panel.model.toggle(0)
    qtbot.waitUntil(lambda: panel.view.visualRect(panel.model.index(0)).height() > before + 200, timeout=2000)


def test_thinking_and_tool_sections_toggle_independently(panel: ChatPanel, qtbot: Any) -> None:
    panel.set_context(every_kind())
    model = panel.model
    row = next(r for r in range(model.rowCount()) if model.message(r).get("stopReason") == "toolUse")
    index = model.index(row)
    assert model.data(index, ChatRole.Collapsed) is True
    assert "read the parser first" in _doc_text(panel, row)  # a one-line preview while collapsed
    assert '"path"' not in _doc_text(panel, row)

    _click_section(qtbot, panel, row, 2)  # the read tool call
    assert model.data(index, ChatRole.ExpandedSections) == frozenset({2})
    assert '"path": "src/parser.py"' in _doc_text(panel, row)

    _click_section(qtbot, panel, row, 0)  # the thinking block
    assert model.data(index, ChatRole.ExpandedSections) == frozenset({0, 2})
    assert model.data(index, ChatRole.Collapsed) is False

    _click_section(qtbot, panel, row, 2)
    assert model.data(index, ChatRole.ExpandedSections) == frozenset({0})


def test_tool_result_and_bash_rows_expand_on_click(panel: ChatPanel, qtbot: Any) -> None:
    panel.set_context(every_kind())
    model = panel.model
    for kind, body in (("toolResult", "return x"), ("bashExecution", "3 passed")):
        row = _row_of(model, kind)
        assert model.is_collapsed(row)
        assert body not in _doc_text(panel, row)
        _click_section(qtbot, panel, row, 0)
        assert not model.is_collapsed(row)
        assert body in _doc_text(panel, row)


def test_collapse_state_survives_rebinding(panel: ChatPanel) -> None:
    messages = every_kind()
    panel.set_context(messages)
    row = _row_of(panel.model, "compactionSummary")
    panel.model.toggle(row)
    # The context builder re-creates summary messages on every call: same content, new dicts.
    panel.set_context([dict(m) for m in messages])
    assert not panel.model.is_collapsed(_row_of(panel.model, "compactionSummary"))


def test_user_and_assistant_rows_look_different(panel: ChatPanel) -> None:
    panel.set_context(every_kind())
    image = panel.view.viewport().grab().toImage()
    model = panel.model

    def fill(row: int) -> int:
        rect = panel.view.visualRect(model.index(row))
        return image.pixel(rect.right() - 30, rect.center().y())

    assert fill(_row_of(model, "user")) != fill(_row_of(model, "assistant"))


def test_error_and_aborted_replies_are_marked(panel: ChatPanel) -> None:
    panel.set_context(every_kind())
    model = panel.model
    statuses = {model.data(model.index(r), ChatRole.Status): r for r in range(model.rowCount())}
    assert "Aborted: Request was aborted" in _doc_text(panel, statuses["aborted"])
    assert "Error: 429 rate_limit_error: slow down" in _doc_text(panel, statuses["error"])


# ==================================================================================== composer


def test_enter_sends_and_clears(panel: ChatPanel, qtbot: Any) -> None:
    composer = panel.composer
    qtbot.keyClicks(composer, "hello world")
    with qtbot.waitSignal(panel.send_requested, timeout=1000) as sent:
        qtbot.keyClick(composer, Qt.Key.Key_Return)
    assert sent.args == ["hello world"]
    assert composer.toPlainText() == ""


def test_shift_enter_inserts_a_newline(panel: ChatPanel, qtbot: Any) -> None:
    composer = panel.composer
    sent: list[str] = []
    panel.send_requested.connect(sent.append)
    qtbot.keyClicks(composer, "line one")
    qtbot.keyClick(composer, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(composer, "line two")
    assert composer.toPlainText() == "line one\nline two"
    assert sent == []
    qtbot.keyClick(composer, Qt.Key.Key_Enter, Qt.KeyboardModifier.KeypadModifier)
    assert sent == ["line one\nline two"]


def test_escape_emits_stop(panel: ChatPanel, qtbot: Any) -> None:
    with qtbot.waitSignal(panel.stop_requested, timeout=1000):
        qtbot.keyClick(panel.composer, Qt.Key.Key_Escape)


def test_empty_text_is_not_sent(panel: ChatPanel, qtbot: Any) -> None:
    sent: list[str] = []
    panel.send_requested.connect(sent.append)
    qtbot.keyClicks(panel.composer, "   ")
    qtbot.keyClick(panel.composer, Qt.Key.Key_Return)
    assert sent == []


def test_busy_swaps_send_for_stop(panel: ChatPanel, qtbot: Any) -> None:
    assert panel.send_button.isVisible() and not panel.stop_button.isVisible()
    panel.set_busy(True)
    assert not panel.send_button.isVisible() and panel.stop_button.isVisible()
    sent: list[str] = []
    panel.send_requested.connect(sent.append)
    qtbot.keyClicks(panel.composer, "queued?")
    qtbot.keyClick(panel.composer, Qt.Key.Key_Return)
    assert sent == [] and panel.composer.toPlainText() == "queued?"  # nothing lost while busy
    with qtbot.waitSignal(panel.stop_requested, timeout=1000):
        qtbot.mouseClick(panel.stop_button, Qt.MouseButton.LeftButton)
    panel.set_busy(False)
    with qtbot.waitSignal(panel.send_requested, timeout=1000) as signal:
        qtbot.mouseClick(panel.send_button, Qt.MouseButton.LeftButton)
    assert signal.args == ["queued?"]


def test_set_editor_text_fills_the_composer(panel: ChatPanel) -> None:
    panel.set_editor_text("edit me\nand branch")
    assert panel.editor_text() == "edit me\nand branch"
    assert panel.composer.textCursor().position() == len("edit me\nand branch")


# ==================================================================================== banners


def test_error_banner_is_plain_text_and_dismissable(panel: ChatPanel, qtbot: Any) -> None:
    panel.show_error("Connection refused <b>bold?</b>")
    banner = panel.error_banner
    assert banner.isVisible() and banner.text() == "Connection refused <b>bold?</b>"
    qtbot.mouseClick(banner.close_button, Qt.MouseButton.LeftButton)
    assert not banner.isVisible()


def test_info_banner(panel: ChatPanel) -> None:
    panel.show_banner("Offline model — add an API key to chat with Claude")
    assert panel.info_banner.isVisible()
    assert "Offline model" in panel.info_banner.text()
    panel.clear_banner()
    assert not panel.info_banner.isVisible()


# ==================================================================================== streaming


def test_stream_shows_text_live_then_the_final_row(panel: ChatPanel, qtbot: Any) -> None:
    panel.set_context(every_kind()[:3])
    rows = panel.model.rowCount()
    panel.begin_stream()
    assert panel.model.rowCount() == rows + 1
    live = rows
    panel.append_delta("thinking", "Let me think")
    panel.append_delta("text", "Hello, ")
    panel.append_delta("text", "world")
    index = panel.model.index(live)
    assert panel.model.data(index, ChatRole.Status) == "streaming"
    assert panel.model.data(index, ChatRole.Text) == "Hello, world"
    assert "Hello, world" in _doc_text(panel, live)
    qtbot.wait(10)
    assert panel.pinned_to_bottom

    final = assistant([{"type": "text", "text": "Hello, world!"}])
    panel.end_stream(final)
    assert panel.model.rowCount() == rows + 1
    assert panel.model.data(index, ChatRole.Message) is final
    assert panel.model.data(index, ChatRole.Status) == "ok"
    assert panel.model.data(index, ChatRole.Streaming) is False
    assert "Hello, world!" in _doc_text(panel, live)
    assert "streaming" not in _doc_text(panel, live)


def test_stream_tool_call_deltas_accumulate(panel: ChatPanel) -> None:
    panel.begin_stream()
    panel.append_delta("toolcall", '{"path": ')
    panel.append_delta("toolcall", '"a.py"}')
    blocks = panel.model.stream_message()["content"]  # type: ignore[index]
    assert blocks == [{"type": "toolCall", "partialJson": '{"path": "a.py"}', "name": "", "arguments": None}]


def test_abort_marks_the_partial_reply_aborted(panel: ChatPanel) -> None:
    panel.begin_stream()
    panel.append_delta("text", "Half an")
    partial = assistant([{"type": "text", "text": "Half an"}], stop="aborted", error="Request was aborted")
    panel.abort_stream(partial)
    row = panel.model.rowCount() - 1
    index = panel.model.index(row)
    assert panel.model.data(index, ChatRole.Status) == "aborted"
    assert panel.model.data(index, ChatRole.Message) is partial
    assert "Aborted" in _doc_text(panel, row) and "Half an" in _doc_text(panel, row)


def test_abort_without_a_message_keeps_what_arrived(panel: ChatPanel) -> None:
    panel.begin_stream()
    panel.append_delta("text", "partial words")
    panel.abort_stream()
    row = panel.model.rowCount() - 1
    assert panel.model.data(panel.model.index(row), ChatRole.Status) == "aborted"
    assert "partial words" in _doc_text(panel, row)


def test_rebinding_keeps_the_live_row_last(panel: ChatPanel) -> None:
    panel.begin_stream()
    panel.append_delta("text", "still coming")
    panel.set_context(every_kind())
    last = panel.model.rowCount() - 1
    assert panel.model.data(panel.model.index(last), ChatRole.Streaming) is True


def test_panel_paints_something(panel: ChatPanel, qtbot: Any) -> None:
    panel.set_context(every_kind())
    qtbot.wait(20)
    image: QImage = panel.grab().toImage()
    colors = {image.pixel(x, y) for x in range(0, image.width(), 13) for y in range(0, image.height(), 17)}
    assert len(colors) > 10
