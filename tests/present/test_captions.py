"""Audit captions are pinned inside the viewport (issue 22, Found 6 and 14)."""

from __future__ import annotations

from desktop_app.present.audit_words import audit_words
from desktop_app.present.captions import ARROWS, MARGIN, apart, off_screen, pin_caption
from desktop_app.present.lod import Rect

VIEW = Rect(0, 0, 800, 600)


def _inside(rect: Rect, outer: Rect = VIEW) -> bool:
    return rect.x >= outer.x and rect.y >= outer.y and rect.right <= outer.right and rect.bottom <= outer.bottom


def test_a_band_caption_sits_in_its_corner_when_the_corner_is_on_screen() -> None:
    spot = pin_caption(Rect(100, 100, 300, 200), 120, 16, VIEW, "band")
    assert spot == Rect(106, 104, 120, 16)


def test_a_band_reaching_past_the_left_and_top_edges_keeps_its_caption_on_screen() -> None:
    spot = pin_caption(Rect(-500, -300, 700, 500), 150, 16, VIEW, "band")
    assert spot is not None and _inside(spot)
    assert spot.x == MARGIN and spot.y == MARGIN


def test_a_line_whose_right_end_is_past_the_canvas_pins_its_words_to_the_right_edge() -> None:
    spot = pin_caption(Rect(-200, 300, 1400, 0), 260, 16, VIEW, "line")
    assert spot is not None and _inside(spot)
    assert spot.right == VIEW.right - MARGIN and spot.bottom <= 300


def test_a_split_marker_left_of_a_node_at_the_left_edge_is_pushed_in() -> None:
    spot = pin_caption(Rect(10, 200, 80, 30), 200, 16, VIEW, "left")
    assert spot is not None and _inside(spot)


def test_a_band_wholly_off_screen_keeps_its_caption_at_that_edge() -> None:
    right = pin_caption(Rect(900, 100, 100, 100), 80, 16, VIEW, "band")
    assert right is not None and _inside(right) and right.right == VIEW.right - MARGIN
    assert off_screen(Rect(900, 100, 100, 100), VIEW) == "right"
    above = pin_caption(Rect(100, -400, 100, 100), 80, 16, VIEW, "band")
    assert above is not None and _inside(above) and above.y == MARGIN
    assert off_screen(Rect(100, -400, 100, 100), VIEW) == "above"
    assert off_screen(Rect(100, 700, 100, 100), VIEW) == "below" and ARROWS["below"] == "▼ "


def test_a_cut_line_or_split_marker_off_screen_has_no_caption() -> None:
    assert pin_caption(Rect(0, -50, 800, 0), 80, 16, VIEW, "line") is None
    assert pin_caption(Rect(100, 900, 80, 30), 80, 16, VIEW, "left") is None
    assert off_screen(Rect(100, 100, 10, 10), VIEW) == ""


def test_a_caption_stays_in_the_visible_part_of_its_band_when_it_fits() -> None:
    band = Rect(100, 500, 300, 400)  # only its top 100 px are on screen
    spot = pin_caption(band, 120, 16, VIEW, "band")
    assert spot is not None and spot.y >= 500 and spot.bottom <= VIEW.bottom


def test_band_words_name_the_counts() -> None:
    words = audit_words(78, 4, True, False)
    assert words.summarized_band == "summarized · 78 entries"
    assert words.kept_band == "kept word for word · 4 entries"
    assert audit_words(1, 0, False, False).kept_band == "nothing kept"
    assert audit_words(5, 0, False, False, keeps_nothing=True).kept_band == "nothing kept"


def test_captions_that_would_overlap_are_stacked_apart_inside_the_view() -> None:
    """At 1280×800 on a real pi session the summarized band's caption, pinned to the top edge with
    its arrow, was drawn under the kept band's caption at the top of its band ("▲ sumkept word…")."""
    pinned = pin_caption(Rect(50, -900, 300, 400), 200, 18, VIEW, "band")  # above the view: at the top edge
    kept = pin_caption(Rect(40, -20, 300, 700), 180, 18, VIEW, "band")  # its band runs past the top
    assert pinned is not None and kept is not None
    rects = apart([pinned, kept], VIEW)
    assert rects[0] == pinned  # the first placed keeps its place
    assert not _overlap(rects[0], rects[1]) and all(_inside(r) for r in rects)
    assert rects[1].x == kept.x and rects[1].y > kept.y  # moved the least: down, past the first


def test_stacking_near_the_bottom_edge_goes_up_instead() -> None:
    a = Rect(100, VIEW.bottom - 22, 200, 18)
    b = Rect(120, VIEW.bottom - 22, 200, 18)
    rects = apart([a, b], VIEW)
    assert not _overlap(rects[0], rects[1]) and all(_inside(r) for r in rects)
    assert rects[1].bottom <= a.y


def test_captions_apart_already_stay_put() -> None:
    a, b = Rect(10, 10, 100, 18), Rect(10, 40, 100, 18)
    assert apart([a, b], VIEW) == [a, b]


def _overlap(a: Rect, b: Rect) -> bool:
    return a.x < b.right and b.x < a.right and a.y < b.bottom and b.y < a.bottom
