"""ArborStatusBar: model, thinking, context meter ("?" after a compaction, threshold tick), file, follow."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from collections.abc import Iterator  # noqa: E402
from typing import Any  # noqa: E402

import pytest  # noqa: E402
from PySide6.QtGui import QColor, QPalette  # noqa: E402
from PySide6.QtWidgets import QMainWindow  # noqa: E402

from desktop_app.ui.status_bar import ArborStatusBar, ContextMeter, ElidedLabel, format_tokens  # noqa: E402


@pytest.fixture
def bar(qtbot: Any) -> Iterator[ArborStatusBar]:
    window = QMainWindow()
    qtbot.addWidget(window)
    status = ArborStatusBar()
    window.setStatusBar(status)
    window.resize(1200, 80)
    window.show()
    qtbot.waitExposed(window)
    yield status  # the window stays referenced (and alive) until the test ends


@pytest.mark.parametrize(
    ("count", "text"),
    [
        (0, "0"),
        (950, "950"),
        (1234, "1.2k"),
        (9999, "10.0k"),
        (143_210, "143k"),
        (1_500_000, "1.5M"),
        (12_000_000, "12M"),
    ],
)
def test_format_tokens_is_pis(count: int, text: str) -> None:
    assert format_tokens(count) == text


def test_shows_model_thinking_file_and_follow_state(bar: ArborStatusBar) -> None:
    bar.set_model("claude-sonnet-4-5")
    bar.set_thinking("high")
    path = "/home/me/.pi/agent/sessions/--home-me-code--/2026-12-02T10-00-00-000Z_0193a1b2-c3d4-7e5f.jsonl"
    bar.set_session_file(path)
    bar.set_following(True)
    assert bar.model_text() == "claude-sonnet-4-5"
    assert bar.thinking_text() == "thinking high"
    assert bar.file_text() == path
    assert bar.following_text() == "● watching file"  # the file, not the canvas following the leaf
    bar.set_following(False)
    assert bar.following_text() == ""
    bar.set_model(None)
    bar.set_thinking(None)
    assert bar.model_text() == "no model" and bar.thinking_text() == "thinking off"


def test_long_file_path_is_elided_in_the_middle(bar: ArborStatusBar, qtbot: Any) -> None:
    path = "/very/long/" + "directory/" * 30 + "session-file-name.jsonl"
    bar.set_session_file(path)
    label = bar.findChild(ElidedLabel, "statusFile")
    assert label is not None
    qtbot.waitUntil(lambda: "…" in label.text())
    assert label.text().endswith(".jsonl") and label.toolTip() == path


def test_context_meter_text_and_threshold(bar: ArborStatusBar) -> None:
    bar.set_context_usage(143_210, 200_000, 16_384)
    meter = bar.meter
    assert bar.context_text() == "143k/200k"
    assert meter.threshold == 183_616
    assert meter.threshold_label() == "auto-compact at 183.6k"
    assert meter.fill_fraction == pytest.approx(143_210 / 200_000)
    assert meter.level() == "ok"
    assert "183,616" in meter.toolTip()


def test_unknown_tokens_after_compaction_show_a_question_mark(bar: ArborStatusBar) -> None:
    bar.set_context_usage(None, 200_000, 16_384)
    assert bar.context_text() == "?/200k"
    assert bar.meter.fill_fraction is None and bar.meter.level() == "unknown"
    assert bar.meter.threshold_x() is not None  # the threshold is still known
    assert "unknown" in bar.meter.toolTip()


def test_threshold_marker_position_and_pixels(bar: ArborStatusBar, qtbot: Any) -> None:
    meter = bar.meter
    bar.set_context_usage(50_000, 200_000, 50_000)  # threshold at 3/4 of the bar
    qtbot.wait(10)
    rect = meter.bar_rect()
    x = meter.threshold_x()
    assert x is not None
    assert x == rect.left() + round(0.75 * (rect.width() - 1))
    image = meter.grab().toImage()
    tick = QColor(image.pixel(x, rect.center().y()))
    groove_x = rect.left() + int(0.6 * rect.width())  # past the fill (25%), before the tick
    groove = QColor(image.pixel(groove_x, rect.center().y()))
    text = meter.palette().color(QPalette.ColorRole.WindowText)
    assert abs(tick.lightness() - text.lightness()) < 40  # the tick is drawn in the text colour
    assert abs(tick.lightness() - groove.lightness()) > 60  # and stands out from the groove
    fill = QColor(image.pixel(rect.left() + 3, rect.center().y()))
    assert fill.green() > fill.red()  # 25% full: the "ok" colour


def test_meter_levels(bar: ArborStatusBar) -> None:
    bar.set_context_usage(170_000, 200_000, 16_384)
    assert bar.meter.level() == "near"
    bar.set_context_usage(190_000, 200_000, 16_384)
    assert bar.meter.level() == "over"
    bar.set_context_usage(300_000, 200_000, 16_384)
    assert bar.meter.fill_fraction == 1.0


def test_no_window_means_no_bar_and_no_threshold(qtbot: Any) -> None:
    meter = ContextMeter()
    qtbot.addWidget(meter)
    meter.set_usage(1200, 0, 16_384)
    assert meter.text() == "1.2k"
    assert meter.threshold is None and meter.threshold_x() is None and meter.fill_fraction is None
    meter.set_usage(1000, 10_000, 20_000)  # reserve larger than the window: nothing to mark
    assert meter.threshold_x() is None


def test_temporary_messages_do_not_hide_the_meter(bar: ArborStatusBar) -> None:
    bar.set_context_usage(1000, 200_000, 16_384)
    bar.showMessage("Session compacted 2 times")
    assert bar.currentMessage() == "Session compacted 2 times"
    assert bar.meter.isVisible()


def test_an_estimate_after_compaction_is_shown_marked_not_as_a_question_mark(bar: ArborStatusBar) -> None:
    bar.set_context_usage(12_300, 200_000, 16_384, "Estimated: the context was just compacted", estimated=True)
    assert bar.context_text() == "~12k/200k"
    assert bar.meter.fill_fraction == pytest.approx(12_300 / 200_000)
    assert "about 12,300" in bar.meter.toolTip() and "just compacted" in bar.meter.toolTip()
    bar.set_context_usage(13_000, 200_000, 16_384)  # the next reply reported the real size
    assert bar.context_text() == "13k/200k"
