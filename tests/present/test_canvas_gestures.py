"""The canvas's gestures: Ctrl+wheel and trackpad zoom factors, and when a drag moved the picture."""

from __future__ import annotations

import pytest

from desktop_app.present.canvas_gestures import PanWatch, native_zoom, wheel_zoom


def test_ctrl_wheel_zooms_in_and_out_by_the_same_factor_per_notch() -> None:
    notch_in, notch_out = wheel_zoom(120), wheel_zoom(-120)
    assert notch_in is not None and notch_out is not None
    assert notch_in == pytest.approx(1.0015**120) and notch_in > 1.19
    assert notch_in * notch_out == pytest.approx(1.0)
    assert wheel_zoom(0) is None


def test_native_zoom_is_one_plus_the_change() -> None:
    assert native_zoom(0.25) == 1.25 and native_zoom(-0.5) == 0.5


def test_a_drag_counts_as_a_move_once_and_only_when_it_scrolled() -> None:
    watch = PanWatch()
    watch.press((10, 20))
    assert not watch.moved((10, 20))  # a click that did not scroll
    assert watch.moved((12, 20))
    assert not watch.moved((30, 20))  # once per press
    watch.press(None)  # not the left button
    assert not watch.moved((0, 0))
    watch.press((0, 0))
    watch.release()
    assert not watch.moved((5, 5))
