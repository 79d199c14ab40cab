"""Session text is shown as text on every surface where Qt guesses the format (issue 23 item 3): a user
message ``<img src="file:///…/red.png"> hello`` drew the local image in the context lens's tooltip.
Tooltips, labels, message boxes and list rows show ``<img …>``, ``<b>`` and ``&amp;`` as typed."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtGui import QAction, QHelpEvent, Qt, QTextDocument
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QMessageBox,
    QToolTip,
    QTreeWidget,
    QTreeWidgetItemIterator,
    QWidget,
)

from desktop_app.session.paths import arbor_sessions_root
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.plain import plain_label, plain_text
from desktop_app.ui.testing import open_window, pump
from tests import source
from tests.present.test_sessions import make_session
from tests.ui.test_sessions_panel import wait_listed

UI = Path(__file__).resolve().parents[2] / "desktop_app" / "ui"
IMG = '<img src="file:///tmp/red.png"> hello'
HOSTILE = [IMG, "<b>bold</b> &amp; more", "  <i>x</i>\n<u>two</u>  lines", "<qt>&lt;</qt>", "&amp; plain", "a < b & c"]


def shown(text: str, text_format: Qt.TextFormat = Qt.TextFormat.AutoText) -> QTextDocument:
    """What Qt renders for ``text`` on a surface of ``text_format`` (tooltips, message boxes and
    default labels are ``AutoText``: rich when ``Qt.mightBeRichText``)."""
    doc = QTextDocument()
    rich = text_format == Qt.TextFormat.RichText or (
        text_format == Qt.TextFormat.AutoText and Qt.mightBeRichText(text)
    )
    if rich:
        doc.setHtml(text)
    else:
        doc.setPlainText(text)
    return doc


def has_image(doc: QTextDocument) -> bool:
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            if it.fragment().charFormat().isImageFormat():
                return True
            it += 1
        block = block.next()
    return False


@pytest.fixture
def app() -> QApplication:
    existing = QApplication.instance()
    return existing if isinstance(existing, QApplication) else QApplication([])


@pytest.mark.parametrize("text", HOSTILE)
@pytest.mark.usefixtures("app")
def test_plain_text_shows_the_literal_characters(text: str) -> None:
    doc = shown(plain_text(text))
    assert doc.toPlainText() == text and not has_image(doc)


@pytest.mark.usefixtures("app")
def test_plain_text_leaves_ordinary_text_alone() -> None:
    for text in ["Send (Enter)", "Context: 1,200 of 200,000 tokens.\nAuto-compaction above 180,000", "a < b"]:
        assert plain_text(text) == text


@pytest.mark.parametrize("text", HOSTILE)
def test_a_plain_label_tooltip_and_message_box_show_markup_as_typed(app: QApplication, text: str) -> None:
    label = plain_label(QLabel())
    label.setText(text)
    assert label.textFormat() == Qt.TextFormat.PlainText and shown(label.text(), label.textFormat()).toPlainText() == text
    widget = QWidget()
    widget.setToolTip(plain_text(text))
    assert shown(widget.toolTip()).toPlainText() == text
    box = QMessageBox(QMessageBox.Icon.Warning, "t", plain_text(text))
    assert shown(box.text(), box.textFormat()).toPlainText() == text
    for w in (label, widget, box):
        w.deleteLater()


# --------------------------------------------------------------------------- the whole window


def _hostile_session(folder: Path) -> Path:
    """A session whose every text looks like HTML: message, model, thinking level, label, name."""
    def line(**fields: object) -> str:
        return json.dumps(fields)

    usage = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
             "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
    lines = [
        line(type="session", version=3, id="s1", timestamp="2025-01-01T00:00:00.000Z", cwd=str(folder)),
        line(type="thinking_level_change", id="t1", parentId=None, timestamp="2025-01-01T00:00:01.000Z",
             thinkingLevel="<i>max</i>"),
        line(type="message", id="<b>u1</b>", parentId="t1", timestamp="2025-01-01T00:00:02.000Z",
             message={"role": "user", "content": [{"type": "text", "text": IMG}], "timestamp": 1}),
        line(type="message", id="a1", parentId="<b>u1</b>", timestamp="2025-01-01T00:00:03.000Z",
             message={"role": "assistant", "content": [{"type": "text", "text": "<b>bold</b> &amp; reply"}],
                      "provider": "anthropic", "model": "<b>model</b>", "usage": usage, "stopReason": "stop",
                      "timestamp": 2}),
        line(type="label", id="l1", parentId="a1", timestamp="2025-01-01T00:00:04.000Z", targetId="<b>u1</b>",
             label="<u>labelled</u> &amp;"),
        line(type="session_info", id="n1", parentId="l1", timestamp="2025-01-01T00:00:05.000Z",
             name="<img src=\"file:///tmp/red.png\"> named"),
    ]
    path = folder / "hostile.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _texts(window: MainWindow) -> list[tuple[str, str, Qt.TextFormat]]:
    """(where, text, format) for every label, tooltip and tree row tooltip of the window."""
    found: list[tuple[str, str, Qt.TextFormat]] = []
    for widget in [window, *window.findChildren(QWidget)]:
        if isinstance(widget, QLabel):
            found.append((f"label {widget.objectName() or type(widget.parent()).__name__}", widget.text(), widget.textFormat()))
        if widget.toolTip():
            found.append((f"tooltip of {type(widget).__name__}", widget.toolTip(), Qt.TextFormat.AutoText))
        if isinstance(widget, QTreeWidget):
            it = QTreeWidgetItemIterator(widget)
            while it.value() is not None:
                item = it.value()
                for column in range(widget.columnCount()):
                    found.append((f"row tooltip of {type(widget.parent()).__name__}", item.toolTip(column), Qt.TextFormat.AutoText))
                it += 1
    for action in window.findChildren(QAction):
        found.append((f"action {action.text()}", action.toolTip(), Qt.TextFormat.AutoText))
    return found


def test_no_surface_of_the_window_renders_session_text_as_html(tmp_path: Path) -> None:
    path = _hostile_session(tmp_path)
    listed = make_session(arbor_sessions_root(), "/tmp/<b>proj</b>", [IMG], name="<img src='x.png'> listed")
    window = open_window(path, size=(1400, 900))
    try:
        wait_listed(window.shell.panel)
        window.graph.set_use_dot(False)
        window.sidebar.show_lens()
        window.lens.set_target("<b>u1</b>")
        pump(50)
        window.graph.select("<b>u1</b>", notify=True)
        pump(50)
        texts = _texts(window)
        rendered = [(where, shown(text, fmt)) for where, text, fmt in texts if text]
        assert [where for where, doc in rendered if has_image(doc)] == []
        everything = "\n".join(doc.toPlainText() for _, doc in rendered)
        # the lens row's tooltip (the reported bug), the lens title, the reader's title and crumbs
        assert f"newer · {IMG}" in everything
        assert "Context at the selected entry <b>u1</b>" in everything
        assert "⚑ <u>labelled</u> &amp;" in everything and "[thinking: <i>max</i>]" in everything
        # the sessions panel's rows: the folder and the session's tooltip
        assert "/tmp/<b>proj</b>" in everything and str(listed) in everything
        # the graph's hover preview is rich on purpose (present/preview.py escapes what it quotes)
        point = window.graph.node_center("<b>u1</b>")
        assert point is not None
        viewport = window.graph.viewport()
        QCoreApplication.sendEvent(viewport, QHelpEvent(QEvent.Type.ToolTip, point, viewport.mapToGlobal(point)))
        tip = shown(QToolTip.text())
        assert IMG in tip.toPlainText() and not has_image(tip)
        QToolTip.hideText()
    finally:
        window.close()
        pump(50)


def test_the_status_bar_shows_model_and_file_as_typed(app: QApplication) -> None:
    from desktop_app.ui.status_bar import ArborStatusBar

    status = ArborStatusBar()
    status.set_model("<b>model</b>")
    status.set_session_file(f"/tmp/{IMG}.jsonl")
    texts = [(w.text(), w.textFormat()) for w in status.findChildren(QLabel)]
    texts += [(w.toolTip(), Qt.TextFormat.AutoText) for w in status.findChildren(QWidget) if w.toolTip()]
    rendered = [shown(text, fmt) for text, fmt in texts if text]
    assert not any(has_image(doc) for doc in rendered)
    plain = [doc.toPlainText() for doc in rendered]
    assert "<b>model</b>" in plain and f"/tmp/{IMG}.jsonl" in plain
    status.deleteLater()


# --------------------------------------------------------------------------- the source, by rule

#: Calls that show a string on a surface guessing its format: the string's argument position.
_GUESSING_CALLS = {"setToolTip": -1, "showText": 1, "warning": 2, "information": 2, "question": 2, "critical": 2, "getText": 2}
#: Rich on purpose, escaped where built (present/preview.py): the graph's hover preview.
_RICH_ON_PURPOSE = {"self._target.preview_text(node)"}


def _violations() -> list[str]:
    bad = []
    for path in source.modules(UI):
        tree = source.tree(path)
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            position = _GUESSING_CALLS.get(node.func.attr)
            if position is None or len(node.args) <= max(position, 0) - (1 if position < 0 else 0):
                continue
            if node.func.attr in ("warning", "information", "question", "critical", "getText") and ast.unparse(
                node.func.value
            ) not in ("QMessageBox", "QInputDialog"):
                continue
            arg = node.args[position]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                continue
            if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) and arg.func.id == "plain_text":
                continue
            if ast.unparse(arg) in _RICH_ON_PURPOSE:
                continue
            bad.append(f"{path.relative_to(UI)}:{node.lineno}: {ast.unparse(node)[:100]}")
    return bad


def test_every_tooltip_and_message_box_in_ui_takes_a_literal_or_plain_text() -> None:
    """A tooltip, message box or input prompt with text that is not a string literal goes through
    :func:`plain_text` (a new call site that forgets it fails here)."""
    assert _violations() == []
