"""Nothing in the chat is cut without a way to see it (issue 22 item 10): a compaction's or a branch
summary's line wraps in a narrow chat instead of ending at the row's edge ("click to read the summ"),
and a tool result's whole text is one click away (the row expands, its lines wrapped), or, past what
a row lays out, copied whole and shown whole in the reader."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtGui import QGuiApplication

from desktop_app.present.chat_render import MAX_LINES
from desktop_app.ui.chat import ChatPanel, ChatRole
from desktop_app.ui.chat.sliced import StackedDocument

NARROW = 320  # a chat squeezed by a wide graph


@pytest.fixture
def panel(qtbot: Any) -> ChatPanel:
    widget = ChatPanel()
    qtbot.addWidget(widget)
    widget.resize(NARROW, 700)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def _widest_line(doc: StackedDocument) -> float:
    """The widest laid-out line of the row's document (past the text width: cut at the row's edge)."""
    widest = 0.0
    for segment in doc.segments:
        block = segment.begin()
        while block.isValid():
            layout = block.layout()
            for i in range(layout.lineCount()):
                widest = max(widest, layout.lineAt(i).naturalTextWidth())
            block = block.next()
    return widest


def _laid_out(panel: ChatPanel, row: int) -> StackedDocument:
    width = panel.view.viewport().width()
    doc, _height = panel.delegate.laid_out_document(panel.model, row, width)
    return doc


@pytest.mark.parametrize(
    ("message", "words"),
    [
        (
            {"role": "compactionSummary", "summary": "## Goal\nPlan", "tokensBefore": 61877, "timestamp": 1},
            "Compacted from 61,877 tokens click to read the summary",
        ),
        (
            {"role": "branchSummary", "summary": "Tried Cascais", "fromId": "x", "timestamp": 1},
            "Branch summary of the branch this conversation came back from",
        ),
    ],
)
def test_a_summary_banner_wraps_in_a_narrow_chat(panel: ChatPanel, message: dict[str, Any], words: str) -> None:
    panel.set_context([message])
    doc = _laid_out(panel, 0)
    assert " ".join(doc.toPlainText().split()).endswith(words)  # every word is in the row
    assert _widest_line(doc) <= doc.textWidth() + 0.5  # and none runs past its edge
    assert doc.size().height() > 1.5 * panel.view.fontMetrics().lineSpacing()  # on more than one line


def _tool_result(text: str) -> dict[str, Any]:
    return {
        "role": "toolResult", "toolCallId": "c1", "toolName": "read", "isError": False, "timestamp": 1,
        "content": [{"type": "text", "text": text}],
    }


def test_a_tool_result_expands_to_its_whole_text_wrapped(panel: ChatPanel) -> None:
    minified = "{" + ",".join(f'"key{i}":"value{i}"' for i in range(150)) + "}"  # one line, no spaces
    text = "first line of the file\n" + "a long line of words " * 30 + "\n" + minified
    panel.set_context([_tool_result(text)])
    collapsed = _laid_out(panel, 0)
    assert minified not in collapsed.toPlainText()  # collapsed: a one-line summary
    panel.model.setData(panel.model.index(0), False, ChatRole.Collapsed)  # a click on the row
    expanded = _laid_out(panel, 0)
    assert text in expanded.toPlainText()  # the whole text
    assert _widest_line(expanded) <= expanded.textWidth() + 0.5  # every line wrapped at the row's edge


def test_past_what_a_row_lays_out_the_whole_text_is_copied(panel: ChatPanel) -> None:
    text = "\n".join(f"line {n}" for n in range(MAX_LINES + 50))
    panel.set_context([_tool_result(text)])
    panel.model.setData(panel.model.index(0), False, ChatRole.Collapsed)
    shown = _laid_out(panel, 0).toPlainText()
    assert "line 0" in shown and f"line {MAX_LINES + 49}" not in shown
    assert "50 more lines not shown" in shown and "Copy" in shown  # says what is left out, and how to get it
    assert panel.model.index(0).data() == text  # what "Copy message text" (the row's menu) copies
    QGuiApplication.clipboard().setText(str(panel.model.index(0).data()))
    assert QGuiApplication.clipboard().text() == text
