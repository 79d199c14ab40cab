"""Markdown rendering: highlighted code, and no remote (or local) content ever loaded."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QDesktopServices, QImage, QPainter, QTextDocument

from desktop_app.ui.chat import ChatPanel
from desktop_app.ui.markdown import (
    SafeTextDocument,
    markdown_to_html,
    markdown_to_html_streaming,
)

REMOTE = "http://tracker.invalid/pixel.png"
HOSTILE = (
    f"Look: ![pixel]({REMOTE}) and ![local](file:///etc/passwd) and ![ref][r]\n\n"
    f'<img src="{REMOTE}"> raw html stays text\n\n'
    "[r]: https://tracker.invalid/ref.png\n\n"
    "[a link](https://example.invalid/page)\n"
)


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Record (and refuse) any attempt to open a socket or resolve a name from Python."""
    attempts: list[Any] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        attempts.append(args)
        raise OSError("network disabled in this test")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    return attempts


@pytest.fixture
def base_load_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Calls that reach ``QTextDocument.loadResource`` itself (which would read files or URLs)."""
    calls: list[str] = []
    original = QTextDocument.loadResource

    def recording(self: QTextDocument, kind: int, url: Any) -> Any:
        calls.append(url.toString())
        return original(self, kind, url)

    monkeypatch.setattr(QTextDocument, "loadResource", recording)
    return calls


def test_images_become_placeholders_and_no_img_is_emitted() -> None:
    html = markdown_to_html(HOSTILE)
    assert "<img" not in html.lower()
    assert "[image: pixel]" in html and "[image: local]" in html
    assert "&lt;img src=" in html  # raw HTML is shown as text, not interpreted
    assert f'src="{REMOTE}"' not in html


def test_safe_document_refuses_every_resource(base_load_calls: list[str], qtbot: Any) -> None:
    doc = SafeTextDocument()
    doc.setHtml(
        f'<p>x <img src="{REMOTE}"> <img src="file:///etc/hostname"> <img src="data:image/png;base64,AA=="></p>'
    )
    doc.setTextWidth(300)
    image = QImage(320, 100, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    doc.drawContents(painter)
    painter.end()
    assert REMOTE in doc.blocked_urls  # Qt asked ...
    assert base_load_calls == []  # ... and the request never reached a loader


def test_rendering_a_hostile_message_touches_no_network(
    qtbot: Any, no_network: list[Any], base_load_calls: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[Any] = []

    def open_url(url: Any) -> bool:
        opened.append(url)
        return True

    monkeypatch.setattr(QDesktopServices, "openUrl", open_url)
    panel = ChatPanel()
    qtbot.addWidget(panel)
    panel.resize(600, 700)
    panel.show()
    qtbot.waitExposed(panel)
    message = {"role": "user", "content": [{"type": "text", "text": HOSTILE}], "timestamp": 0}
    reply = {"role": "assistant", "content": [{"type": "text", "text": HOSTILE}], "stopReason": "stop"}
    panel.set_context([message, reply])
    qtbot.wait(30)
    panel.grab()

    # Clicking the link asks the window (signal); the panel opens nothing by itself.
    links: list[str] = []
    panel.link_activated.connect(links.append)
    index = panel.model.index(1)
    rect = panel.view.visualRect(index)
    [doc] = panel.delegate.document(panel.model, 1).segments  # a short message: one document
    block = doc.begin()
    while block.isValid() and "a link" not in block.text():
        block = block.next()
    bounds = doc.documentLayout().blockBoundingRect(block)
    box = panel.delegate.bubble_rect(rect, "assistant")
    point = QPoint(box.left() + 12 + 10, box.top() + 8 + int(bounds.center().y()))
    qtbot.mouseClick(panel.view.viewport(), Qt.MouseButton.LeftButton, pos=point)

    assert links == ["https://example.invalid/page"]
    assert opened == []
    assert no_network == []
    assert base_load_calls == []


def test_code_blocks_are_highlighted_in_a_box() -> None:
    html = markdown_to_html("Before\n\n```python\ndef f():\n    return 'x'  # done\n```\n\nAfter")
    assert "<table" in html and "bgcolor=" in html
    assert '<span style="color:#cf222e;">def</span>' in html  # keyword
    assert "font-style:italic" in html  # comment
    assert "Before" in html and "After" in html


def test_streaming_render_matches_for_simple_text() -> None:
    text = "\n\n".join(f"Paragraph {i} with *emphasis* and `code`." for i in range(80))
    streamed = markdown_to_html_streaming(text)
    for i in (0, 40, 79):
        assert f"Paragraph {i} with" in streamed
    assert "<img" not in streamed


def test_control_characters_do_not_break_rendering() -> None:
    html = markdown_to_html("a\x00b `c\x1fd`")
    assert "\x00" not in html and "\x1f" not in html
