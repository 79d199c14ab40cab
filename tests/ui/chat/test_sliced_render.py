"""Issue 13 item 4: a long message is rendered in bounded slices across event-loop turns.

Behaviour, not timing (how long the slices take is a benchmark figure, ``benchmarks/bench_render.py``):
the sliced result is the synchronous render, the work is handed to the UI thread in slices of
bounded size with the event loop turning between them, a render for a message that changed is
dropped, and a streaming reply keeps updating (re-using the segments it already built).
"""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer

from desktop_app.present.chat_render import render_message
from desktop_app.ui.chat import ChatPanel
from desktop_app.ui.chat.delegate import STREAM_SLOT
from desktop_app.ui.chat.sliced import SLICE_CHARS, RenderJob
from desktop_app.ui.markdown import SafeTextDocument, markdown_parts

PARA = "Lorem ipsum dolor sit amet, **consectetur** adipiscing `elit`, [a link](https://example.invalid). " * 6
UNIT = (
    f"## Heading\n\n{PARA}\n\n- item one\n- item two\n  - nested\n\n1. first\n2. second\n\n"
    f"```python\ndef f(x):\n    return x + 1\n```\n\n> quote {PARA}\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
)
LONG = UNIT * 80  # ~80,000 characters: many chunks, segments and slices


def _reply(text: str, thinking: str = "") -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    if thinking:
        content.insert(0, {"type": "thinking", "thinking": thinking})
    return {"role": "assistant", "content": content, "stopReason": "stop", "model": "m"}


@pytest.fixture
def panel(qtbot: Any) -> ChatPanel:
    panel = ChatPanel()
    qtbot.addWidget(panel)
    panel.resize(700, 900)
    panel.show()
    qtbot.waitExposed(panel)
    return panel


def _finished_jobs(panel: ChatPanel) -> list[RenderJob]:
    jobs: list[RenderJob] = []
    panel.delegate.scheduler.finished.connect(jobs.append)
    return jobs


def _visible_lines(text: str) -> list[str]:
    # Segments are separate documents: a table opening or closing one adds an empty block, and
    # a segment's trailing space is not kept; neither shows.
    return [line.strip() for line in text.split("\n") if line.strip()]


def test_the_sliced_render_is_the_synchronous_render(qtbot: Any, panel: ChatPanel) -> None:
    jobs = _finished_jobs(panel)
    message = _reply(LONG, thinking="Let me think **hard**.\n\n" + PARA * 30)
    panel.set_context([{"role": "user", "content": "hi"}, message])
    panel.model.set_expanded(1, 0, True)  # the thinking block too (a <div> around markdown)
    first = panel.delegate.document(panel.model, 1)
    assert first.placeholder  # too long for one slice: plain text is shown meanwhile
    qtbot.waitUntil(lambda: not panel.delegate.scheduler.busy)
    [job] = [j for j in jobs if j.owner is message and j.key[2] == frozenset({0})]  # type: ignore[index]
    doc = panel.delegate.document(panel.model, 1)
    assert not doc.placeholder and len(doc.segments) > 3
    theme = panel.delegate.theme()
    expected = render_message(message, theme, frozenset({0}), markdown=markdown_parts)
    assert "\n".join(job.html) == expected
    whole = SafeTextDocument()
    whole.setHtml(expected)
    assert _visible_lines(doc.toPlainText()) == _visible_lines(whole.toPlainText())
    assert "return x + 1" in doc.toPlainText() and "Let me think hard." in doc.toPlainText()


def test_the_ui_thread_gets_bounded_slices_with_the_event_loop_turning_between(
    qtbot: Any, panel: ChatPanel
) -> None:
    jobs = _finished_jobs(panel)
    scheduler = panel.delegate.scheduler
    seen: list[int] = []  # how many slices had run at each turn of the event loop
    beat = QTimer()
    beat.setInterval(0)
    beat.timeout.connect(lambda: seen.append(len(scheduler.slices)))
    beat.start()
    message = _reply(LONG)
    panel.set_context([message])
    panel.delegate.document(panel.model, 0)
    qtbot.waitUntil(lambda: not scheduler.busy)
    beat.stop()
    [job] = [j for j in jobs if j.owner is message]
    largest_part = max(len(part) for part in job.html)
    assert len(job.slices) >= sum(job.units) // (SLICE_CHARS + largest_part)
    assert len(job.slices) > 5 and sum(job.slices) == sum(job.units)
    for worked in job.slices:
        assert worked < SLICE_CHARS + largest_part  # at most one unit past the budget
    assert max(job.units) < 2 * SLICE_CHARS  # segments stay near SEGMENT_CHARS
    # The heartbeat ran between slices: the loop turned at many different points of the job.
    assert len(set(seen)) > len(job.slices) // 2


def test_a_short_message_is_rendered_at_once(qtbot: Any, panel: ChatPanel) -> None:
    panel.set_context([_reply("Just **one** line.")])
    doc = panel.delegate.document(panel.model, 0)
    assert not doc.placeholder and len(doc.segments) == 1 and "Just one line." in doc.toPlainText()
    assert not panel.delegate.scheduler.busy and panel.delegate.scheduler.stats["finished_at_once"] >= 1


def test_a_render_for_a_live_row_that_ended_is_dropped(qtbot: Any, panel: ChatPanel) -> None:
    jobs = _finished_jobs(panel)
    scheduler = panel.delegate.scheduler
    panel.set_context([{"role": "user", "content": "hi"}])
    panel.begin_stream()
    panel.model.set_stream_message(_reply(LONG))
    panel.delegate.document(panel.model, 1)
    assert scheduler.pending(STREAM_SLOT) is not None
    dropped = scheduler.stats["dropped"]
    final = _reply("The **final** answer, short.")
    panel.end_stream(final)  # before the live render's slices have run
    assert scheduler.pending(STREAM_SLOT) is None and scheduler.stats["dropped"] == dropped + 1
    qtbot.waitUntil(lambda: not scheduler.busy)
    qtbot.wait(20)
    assert all(job.slot != STREAM_SLOT for job in jobs)  # the stale render never landed
    doc = panel.delegate.document(panel.model, 1)
    assert doc.toPlainText().endswith("The final answer, short.") and "Lorem" not in doc.toPlainText()


def test_renders_for_rows_that_were_rebound_away_are_dropped(qtbot: Any, panel: ChatPanel) -> None:
    jobs = _finished_jobs(panel)
    scheduler = panel.delegate.scheduler
    old = _reply(LONG)
    panel.set_context([old])
    panel.delegate.document(panel.model, 0)
    assert scheduler.busy
    panel.set_context([_reply("another branch")])
    assert not scheduler.busy
    qtbot.wait(20)
    assert all(job.owner is not old for job in jobs)


def test_a_streaming_reply_keeps_updating_and_reuses_its_segments(qtbot: Any, panel: ChatPanel) -> None:
    jobs = _finished_jobs(panel)
    scheduler = panel.delegate.scheduler
    panel.set_context([{"role": "user", "content": "hi"}])
    panel.begin_stream()
    text = ""
    for n in range(4):
        text += UNIT * 10 + f"\n\nmarker {n}\n\n"
        panel.model.set_stream_message(_reply(text))
        panel.delegate.document(panel.model, 1)
        qtbot.waitUntil(lambda: not scheduler.busy)
        qtbot.waitUntil(lambda n=n: f"marker {n}" in panel.delegate.document(panel.model, 1).toPlainText())
    live = [job for job in jobs if job.slot == STREAM_SLOT]
    assert len(live) >= 3
    # Later renders re-use the segments built before: most of their document work is cached.
    last = live[-1]
    segment_work = sum(last.units) - sum(len(part) for part in last.html)
    assert segment_work < sum(len(part) for part in last.html) / 2
    panel.end_stream(_reply(text))
    qtbot.waitUntil(lambda: not scheduler.busy)
    qtbot.waitUntil(lambda: not panel.delegate.document(panel.model, 1).placeholder)
    assert "marker 3" in panel.delegate.document(panel.model, 1).toPlainText()


def test_a_toggle_in_a_later_segment_is_found_and_clicked(qtbot: Any, panel: ChatPanel) -> None:
    message = _reply(LONG)
    message["content"].append({"type": "toolCall", "id": "t1", "name": "bash", "arguments": {"command": "ls -la"}})
    panel.set_context([message])
    panel.delegate.document(panel.model, 0)
    qtbot.waitUntil(lambda: not panel.delegate.scheduler.busy)
    doc = panel.delegate.document(panel.model, 0)
    assert len(doc.segments) > 3 and "ls -la" in doc.segments[-1].toPlainText()
    index = panel.model.index(0)
    panel.view.scrollTo(index, panel.view.ScrollHint.PositionAtBottom)
    qtbot.wait(20)
    rect = panel.view.visualRect(index)
    section = panel.delegate.section_rect(panel.model, 0, rect, 1)
    assert section is not None and section.top() > rect.top() + doc.size().height() / 2
    point = section.center()
    point.setX(section.left() + 30)
    assert panel.delegate.hit_section(panel.model, 0, rect, point) == 1
    qtbot.mouseClick(panel.view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert panel.model.expanded(0) == frozenset({1})


def test_a_long_row_is_laid_out_again_in_slices_when_the_width_changes(qtbot: Any, panel: ChatPanel) -> None:
    jobs = _finished_jobs(panel)
    scheduler = panel.delegate.scheduler
    panel.set_context([_reply(LONG)])
    panel.delegate.laid_out_document(panel.model, 0, panel.delegate.row_width)
    qtbot.waitUntil(lambda: not scheduler.busy)
    panel.hide()  # no paints at the view's own width from here on: only the calls below
    wide = panel.delegate.document(panel.model, 0)
    width = wide.textWidth()
    done = len(jobs)
    doc, _ = panel.delegate.laid_out_document(panel.model, 0, panel.delegate.row_width - 200)
    assert doc is wide and doc.textWidth() == width  # kept as it was while the new one is built
    assert scheduler.busy
    qtbot.waitUntil(lambda: not scheduler.busy)
    assert len(jobs) == done + 1 and len(jobs[-1].slices) > 1
    narrow, _ = panel.delegate.laid_out_document(panel.model, 0, panel.delegate.row_width - 200)
    assert narrow is not wide and narrow.textWidth() == width - 200
    assert _visible_lines(narrow.toPlainText()) == _visible_lines(wide.toPlainText())


def test_the_preview_of_a_tall_row_is_drawn_where_the_view_looks(qtbot: Any, panel: ChatPanel) -> None:
    panel.set_context([{"role": "user", "content": "hi"}, _reply(UNIT * 60)])  # pinned to the bottom
    assert panel.delegate.document(panel.model, 1).placeholder  # the view lays its rows out (a slice or two may run; the render takes many)
    assert panel.view.visualRect(panel.model.index(1)).top() < 0  # a tall row, scrolled into
    image = panel.grab().toImage()  # the panel: grabbing the viewport alone paints no rows
    assert panel.delegate.scheduler.busy  # still the preview on screen
    background = image.pixelColor(image.width() // 2, image.height() // 2)
    inked = sum(
        1
        for y in range(0, image.height() // 3, 3)
        for x in range(20, image.width() - 20, 3)
        if image.pixelColor(x, y).lightness() < background.lightness() - 80
    )
    assert inked > 100  # text near the top of the viewport, not an empty bubble
