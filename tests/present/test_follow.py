"""Where the canvas scrolls to keep the leaf in view (present/follow.py, issue 22 item 1)."""

from __future__ import annotations

from desktop_app.present.follow import MARGIN, FollowState, follow_scroll
from desktop_app.present.lod import Rect

VIEW = Rect(0, 0, 800, 600)
MINIMAP = Rect(590, 450, 200, 140)  # bottom-right corner


def _moved(target: Rect, scroll: tuple[float, float]) -> Rect:
    return Rect(target.x - scroll[0], target.y - scroll[1], target.w, target.h)


def test_a_leaf_in_view_and_clear_does_not_scroll() -> None:
    assert follow_scroll(Rect(300, 200, 200, 60), VIEW, [MINIMAP]) == (0.0, 0.0)


def test_a_leaf_below_the_view_comes_up_by_the_least_amount() -> None:
    leaf = Rect(300, 700, 200, 60)
    dx, dy = follow_scroll(leaf, VIEW)
    assert dx == 0 and dy == 760 - (600 - MARGIN)
    assert _moved(leaf, (dx, dy)).bottom == 600 - MARGIN


def test_a_leaf_cut_off_at_the_right_edge_comes_in_whole() -> None:
    leaf = Rect(700, 200, 200, 60)  # a regenerated reply placed right of its sibling
    moved = _moved(leaf, follow_scroll(leaf, VIEW))
    assert moved.right <= 600 + 200 - MARGIN and moved.x >= MARGIN


def test_the_leaf_never_ends_under_the_minimap() -> None:
    leaf = Rect(560, 700, 200, 60)  # below the view, in the minimap's column
    scroll = follow_scroll(leaf, VIEW, [MINIMAP])
    moved = _moved(leaf, scroll)
    assert Rect(MARGIN, MARGIN, 800 - 2 * MARGIN, 600 - 2 * MARGIN).contains(moved)
    assert not moved.intersects(MINIMAP)


def test_a_leaf_already_under_the_minimap_moves_clear_of_it() -> None:
    leaf = Rect(600, 480, 150, 60)
    moved = _moved(leaf, follow_scroll(leaf, VIEW, [MINIMAP]))
    assert not moved.intersects(MINIMAP)


def test_a_leaf_far_above_comes_down() -> None:
    leaf = Rect(300, -375, 200, 60)  # the far switch of the issue: 375 px above the viewport
    moved = _moved(leaf, follow_scroll(leaf, VIEW, [MINIMAP]))
    assert moved.y == MARGIN


def test_a_leaf_bigger_than_the_view_shows_its_top_left() -> None:
    leaf = Rect(100, 100, 1000, 900)
    moved = _moved(leaf, follow_scroll(leaf, VIEW))
    assert (moved.x, moved.y) == (0, 0)


def test_no_room_beside_the_minimap_still_brings_the_leaf_in() -> None:
    small = Rect(0, 0, 260, 200)
    leaf = Rect(100, 500, 200, 60)
    moved = _moved(leaf, follow_scroll(leaf, small, [Rect(50, 50, 200, 140)]))
    assert small.contains(moved)  # the minimap hides instead (MinimapBinding.place)


def test_following_stops_on_a_user_move_and_resumes() -> None:
    state = FollowState()
    assert state.following
    assert state.user_moved() and not state.following
    assert not state.user_moved()
    assert state.resume() and state.following
    assert not state.resume()


def test_a_flip_offers_a_summary_unless_skip_prompt() -> None:
    from desktop_app.present.siblings import flip_offer

    offer = flip_offer("old", "new", skip_prompt=False)
    assert offer is not None and (offer.left_leaf, offer.target) == ("old", "new")
    assert "Summarize the branch you left?" in offer.text
    assert flip_offer("old", "new", skip_prompt=True) is None
    assert flip_offer(None, "new", skip_prompt=False) is None
    assert flip_offer("same", "same", skip_prompt=False) is None
