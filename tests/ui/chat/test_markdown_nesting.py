"""Issue 13 item 4: deeply nested markdown is capped, so no message can freeze the window.

Structural, not timed: the rendered HTML never nests lists or quotes deeper than ``MAX_NESTING``,
finished and streaming alike, and text within the cap is untouched. How long the hostile inputs
take to render is a benchmark figure (``benchmarks/bench_gui.py``).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from desktop_app.present.markdown_html import MAX_NESTING, cap_nesting
from desktop_app.ui.chat import ChatPanel
from desktop_app.ui.markdown import markdown_to_html, markdown_to_html_streaming

HOSTILE = {
    "dashes": "- " * 10_000 + "x",
    "dashes-then-text": "- " * 10_000 + "tail",
    "ordered": "1. " * 5_000 + "x",
    "quotes": "> " * 5_000 + "x",
    "mixed": "- > 1. " * 3_000 + "x",
    "indented": "\n".join("  " * i + "- x" for i in range(400)),
    "indented-markers": "  " + "- " * 10_000 + "x",
}


def _max_list_depth(html: str) -> int:
    """The deepest nesting in Qt's HTML: lists are nested tags, quotes a 40 px margin a level."""
    depth = deepest = 0
    for tag in re.finditer(r"<(/?)(ul|ol)\b", html):
        depth += -1 if tag.group(1) else 1
        deepest = max(deepest, depth)
    margins = [int(m) // 40 for m in re.findall(r"margin-left:(\d+)px", html)]
    return max([deepest, *margins])


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_nesting_is_capped(name: str) -> None:
    text = HOSTILE[name]
    for render in (markdown_to_html, markdown_to_html_streaming):
        html = render(text)
        assert 1 <= _max_list_depth(html) <= MAX_NESTING + 1, name  # + 1: Qt opens a list per indent


def test_a_line_of_dashes_stays_one_horizontal_rule() -> None:
    rule = "- " * 10_000
    assert cap_nesting(rule) is rule  # md4c reads it as a thematic break: nothing nests
    html = markdown_to_html(rule)
    assert _max_list_depth(html) == 0 and "<hr" in html


def test_fenced_code_is_never_touched() -> None:
    code = "- " * 40 + "x"
    html = markdown_to_html(f"```text\n{code}\n```")
    assert "\\-" not in html and html.count("- ") >= 40


def test_the_chat_shows_a_hostile_message_and_its_tail(qtbot: Any) -> None:
    panel = ChatPanel()
    qtbot.addWidget(panel)
    panel.resize(600, 800)
    panel.show()
    message = {"role": "assistant", "content": [{"type": "text", "text": HOSTILE["dashes-then-text"]}]}
    panel.set_context([{"role": "user", "content": "hi"}, message])
    panel.begin_stream()
    panel.append_delta("text", HOSTILE["dashes"])  # the live row renders through the same cap
    panel.delegate.document(panel.model, 1)
    panel.delegate.document(panel.model, 2)
    qtbot.waitUntil(lambda: not panel.delegate.scheduler.busy)  # long: rendered in slices
    document = panel.delegate.document(panel.model, 1)
    assert not document.placeholder and "tail" in document.toPlainText()
    assert _max_list_depth(document.toHtml()) <= MAX_NESTING + 1
    live = panel.delegate.document(panel.model, 2)
    assert not live.placeholder
    assert _max_list_depth(live.toHtml()) <= MAX_NESTING + 1
