"""Semantic zoom without Qt: the level of detail per scale, what each node says, and label placement
that never overlaps, on hand-made trees and on every conformance case."""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from typing import Any

import pytest

from desktop_app.present.graph_model import build_view_graph
from desktop_app.present.layout import LayoutSpec, tidy_tree_layout
from desktop_app.present.lod import (
    FULL_SCALE,
    GROUPS_SCALE,
    LANDMARK_ROLES,
    Detail,
    Marks,
    Rect,
    detail_for,
    elide,
    node_marks,
    place_labels,
    shows_text,
    wrap_two,
)
from desktop_app.present.viewgraph import Node, SegmentKey
from desktop_app.session import SessionManager
from tests.ui.conformance_cases import CASES

from .builders import index_of, msg, other


def measure(text: str) -> float:
    """A fixed-pitch stand-in for the font: 7 px a character."""
    return 7.0 * len(text)


LINE = 18.0


def test_detail_follows_the_scale() -> None:
    assert detail_for(1.0) is Detail.FULL
    assert detail_for(FULL_SCALE) is Detail.FULL
    assert detail_for(FULL_SCALE - 0.01) is Detail.GROUPS
    assert detail_for(GROUPS_SCALE) is Detail.GROUPS
    assert detail_for(GROUPS_SCALE - 0.01) is Detail.LANDMARKS
    assert detail_for(0.001) is Detail.LANDMARKS


def _branchy() -> list[dict[str, object]]:
    return [
        msg("u1", None, "user", "plan the trip"),
        msg("a1", "u1", "assistant", "three days in Lisbon"),
        msg("u2", "a1", "user", "day two?"),
        msg("a2", "u2", "assistant", "Sintra"),
        msg("u3", "a2", "user", "day three?"),
        msg("a3", "u3", "assistant", "Cascais"),
        other("compaction", "c1", "a3", summary="s", firstKeptEntryId="u3", tokensBefore=18000),
        msg("u4", "c1", "user", "and food?"),
        msg("a4", "u4", "assistant", "pastéis"),
        msg("x1", "a1", "user", "what about Porto instead"),
        msg("x2", "x1", "assistant", "Porto is lovely"),
        other("label", "l1", "a4", targetId="a2", label="sintra plan"),
    ]


def _marks(leaf: str = "a4", name: str | None = None) -> Marks:
    index = index_of(_branchy())
    graph = build_view_graph(index, leaf)
    return node_marks(graph, name)


def test_every_node_gets_its_most_important_role() -> None:
    marks = _marks()
    assert marks["a4"].role == "active-leaf"
    assert marks["a4"].text.startswith("● leaf")
    assert marks["a2"].role == "label" and "sintra plan" in marks["a2"].text
    assert marks["c1"].role == "compaction" and "18k tokens before" in marks["c1"].text
    assert marks["a1"].role == "branch" and "2 branches" in marks["a1"].text
    assert marks["u1"].role == "root"
    assert marks[SegmentKey("x1")].role == "leaf"  # x1→x2 is folded: a run that ends in a leaf
    # the active leaf first, then the root; landmarks before ordinary entries
    order = list(marks)
    assert order[0] == "a4" and order[1] == "u1"
    roles = [m.role for m in marks.values()]
    assert max(i for i, r in enumerate(roles) if r in LANDMARK_ROLES) < min(
        i for i, r in enumerate(roles) if r not in LANDMARK_ROLES
    )


def test_the_root_shows_the_session_name() -> None:
    assert _marks(name="Lisbon trip")["u1"].text == "◉ Lisbon trip"


def test_which_nodes_show_text_at_each_detail() -> None:
    marks = _marks()
    plain = [m for m in marks.values() if not m.is_landmark]
    assert plain, "the tree has ordinary entries"
    for mark in marks.values():
        assert not shows_text(mark, Detail.FULL)  # the node writes its own text
        assert shows_text(mark, Detail.GROUPS)
        assert shows_text(mark, Detail.LANDMARKS) == mark.is_landmark
    assert not any(shows_text(m, Detail.LANDMARKS) for m in plain)


def test_elide_fits_the_width() -> None:
    assert elide("short", 100, measure) == "short"
    cut = elide("a rather long line of words", 70, measure)
    assert cut.endswith("…") and measure(cut) <= 70
    assert elide("anything", 3, measure) == ""


def test_a_crowded_spot_drops_labels_instead_of_overlapping() -> None:
    marks = _marks()
    screen = {node: (400.0, 100.0) for node in marks}  # every node on one point
    placed = place_labels(marks.values(), Detail.LANDMARKS, screen, (1, 1), Rect(0, 0, 800, 600), measure, LINE)
    assert placed[0].mark.node == "a4"  # the most important label wins the room
    assert len(placed) == 6  # right, left, and one line above and below on each side
    assert len({p.mark.node for p in placed}) == len(placed)
    _assert_disjoint(placed)


def test_labels_avoid_obstacles_and_stay_in_the_viewport() -> None:
    marks = _marks()
    screen = {node: (790.0, 20.0 + 40.0 * i) for i, node in enumerate(marks)}
    minimap = Rect(0, 0, 800, 60)
    placed = place_labels(
        marks.values(), Detail.LANDMARKS, screen, (1, 1), Rect(0, 0, 800, 600), measure, LINE, obstacles=[minimap]
    )
    assert placed
    for p in placed:
        assert not p.rect.intersects(minimap)
        assert Rect(0, 0, 800, 600).contains(p.rect)
        assert p.rect.right <= 790  # no room on the right: every label went left


def test_groups_write_inside_boxes_wide_enough() -> None:
    marks = _marks()
    screen = {node: (400.0, 30.0 + 50.0 * i) for i, node in enumerate(marks)}
    placed = place_labels(marks.values(), Detail.GROUPS, screen, (100, 20), Rect(0, 0, 800, 900), measure, LINE)
    assert len(placed) == len(marks)
    assert all(p.inside for p in placed)
    assert all(p.rect.x >= 300 and p.rect.right <= 500 for p in placed)
    narrow = place_labels(marks.values(), Detail.GROUPS, screen, (20, 20), Rect(0, 0, 800, 900), measure, LINE)
    assert narrow and not any(p.inside for p in narrow)


def test_wrap_two_breaks_at_words_and_elides_the_rest() -> None:
    assert wrap_two("day two?", 100, measure) == ("day two?",)
    first, second = wrap_two("plan three days in Lisbon with trains and beaches", 100, measure)  # 14 chars a line
    assert first == "plan three" and measure(second) <= 100 and second.endswith("…")
    assert "plan three days in Lisbon".startswith(first) and second.startswith("days in")
    assert wrap_two("one two three fours", 70, measure) == ("one two", "three fou…")
    assert wrap_two("Supercalifragilistic words", 70, measure) == ("Supercali…",)  # a first word too wide


def test_groups_write_two_lines_inside_boxes_tall_enough() -> None:
    """Issue 22 item 10: between the nodes' own text and landmarks, a box tall enough for two lines
    of label text holds two (word-wrapped, the second elided), as the nodes do nearer in."""
    marks = _marks()
    screen = {node: (400.0, 30.0 + 60.0 * i) for i, node in enumerate(marks)}
    view = Rect(0, 0, 800, 900)
    text_height = 15.0
    placed = place_labels(marks.values(), Detail.GROUPS, screen, (60, 16), view, measure, LINE, text_height=text_height)
    assert placed and all(p.inside for p in placed)
    wrapped = [p for p in placed if "\n" in p.text]
    assert wrapped  # the long ones wrap
    for p in wrapped:
        lines = p.text.split("\n")
        assert len(lines) == 2 and all(measure(line) <= 120 - 12 for line in lines)
        assert p.rect.h == 2 * text_height and p.rect.w == max(measure(line) for line in lines)
        words = " ".join(p.mark.text.split())
        assert words.startswith(lines[0] + " ")  # the first line is the first words
    _assert_disjoint(placed)
    # a box too short for two lines, or no text height given: one elided line, as before
    for box, kwargs in (((60, 14), {"text_height": text_height}), ((60, 16), {})):
        single = place_labels(marks.values(), Detail.GROUPS, screen, box, view, measure, LINE, **kwargs)
        assert single and all("\n" not in p.text and p.rect.h == LINE for p in single)


def _assert_disjoint(placed: list) -> None:  # type: ignore[type-arg]
    for a, b in combinations(placed, 2):
        assert not a.rect.intersects(b.rect), (a, b)


SCALES = (0.005, 0.02, 0.08, 0.2, 0.3, 0.5, 0.8)


@pytest.mark.parametrize("case", CASES)
def test_no_text_overlaps_at_any_scale_on_the_conformance_cases(
    case: str, open_case: Callable[[str], SessionManager]
) -> None:
    session = open_case(case)
    graph = build_view_graph(session.index, session.leaf_id)
    if not len(graph):
        return
    spec = LayoutSpec()
    positions = tidy_tree_layout(graph, spec)
    marks = node_marks(graph, session.get_session_name())
    viewport = Rect(0, 0, 900, 700)
    leaf_seen = False
    for scale in SCALES:
        detail = detail_for(scale)
        leaf = positions.get(graph.leaf_node) if graph.leaf_node is not None else None
        cx, cy = leaf if leaf is not None else next(iter(positions.values()))
        screen = {
            node: ((x - cx) * scale + 450, (y - cy) * scale + 350)
            for node, (x, y) in positions.items()
            if -20 <= (x - cx) * scale + 450 <= 920 and -20 <= (y - cy) * scale + 350 <= 720
        }
        box = (spec.node_width / 2 * scale, spec.node_height / 2 * scale)
        placed = place_labels(marks.values(), detail, screen, box, viewport, measure, LINE)
        _assert_disjoint(placed)
        for p in placed:
            assert viewport.contains(p.rect)
            assert shows_text(p.mark, detail)
        if leaf is not None and graph.leaf_node is not None:
            # the leaf is the most important label and sits mid-screen: it always gets one
            assert placed and placed[0].mark.node == graph.leaf_node
            leaf_seen = True
    assert leaf_seen or graph.leaf_node is None or graph.leaf_node not in positions


@pytest.mark.parametrize("case", ["gen-0031", "gen-0004"])
def test_marks_updated_after_appends_equal_fresh_marks(case: str, tmp_path: object) -> None:
    """Appends at the leaf (the model's fast path): re-marking only the added and changed nodes,
    their parents and the old and new leaf gives what marking every node gives."""
    from pathlib import Path

    from desktop_app.present.graph_model import ViewGraphModel
    from desktop_app.present.lod import update_marks
    from tests.ui.conformance_cases import open_copy

    manager = open_copy(case, Path(str(tmp_path)))
    model = ViewGraphModel(manager.index, manager.leaf_id)
    marks = node_marks(model.graph, "trip")
    for step in range(4):
        old_leaf = model.graph.leaf_node
        role = "user" if step % 2 else "assistant"
        entry_id = manager.append_message({"role": role, "content": [{"type": "text", "text": f"step {step}"}], "timestamp": 1})
        entry = manager.get_entry(entry_id)
        assert entry is not None
        delta = model.add_entry(entry)
        assert not delta.rebuilt  # the fast path, as while a reply streams
        graph = model.graph
        dirty = {*delta.added, *delta.changed, *(graph.parent_of(n) for n in delta.added), old_leaf, graph.leaf_node}
        if old_leaf in graph.nodes:  # the old leaf's mark is stale when only the new node is re-marked
            assert update_marks(graph, marks, set(delta.added), "trip") != node_marks(graph, "trip")
        marks = update_marks(graph, marks, {n for n in dirty if n is not None}, "trip")
        fresh = node_marks(graph, "trip")
        assert marks == fresh and list(marks) == list(fresh)


def test_marks_after_streaming_appends_take_the_quick_way_and_equal_fresh_marks(monkeypatch: Any) -> None:
    """A turn streaming in (default filter): a tool-calling reply is hidden once it is not the leaf,
    so a node goes as others come. The marks kept by :func:`update_marks` equal fresh ones, and
    plain appends never re-rank every mark (its quick way answers)."""
    from desktop_app.present import lod
    from desktop_app.present.graph_model import ViewGraphModel
    from tests.present.builders import index_of, msg, synthetic_session, tool_call_assistant

    quick: list[bool] = []
    original = lod._appended_marks

    def counted(*args: Any, **kwargs: Any) -> Any:
        result = original(*args, **kwargs)
        quick.append(result is not None)
        return result

    monkeypatch.setattr(lod, "_appended_marks", counted)
    entries = synthetic_session(1_500)
    index = index_of(entries)
    model = ViewGraphModel(index, entries[-1]["id"], "default", folding=True)
    marks = node_marks(model.graph, "trip")
    parent = entries[-1]["id"]
    turn = [
        msg("q1", parent, "user", "go on"),
        tool_call_assistant("t1", "q1", "c9"),
        msg("r1", "t1", "toolResult", "data", call="c9"),
        tool_call_assistant("t2", "r1", "c10"),
        msg("r2", "t2", "toolResult", "more", call="c10"),
        msg("a1", "r2", "assistant", "done"),
    ]
    removed = 0
    for entry in turn:
        old_leaf = model.graph.leaf_node
        index.add(entry)
        delta = model.add_entry(entry)
        assert not delta.rebuilt
        removed += len(delta.removed)
        graph = model.graph
        dirty = {*delta.added, *delta.changed, *delta.removed, *(graph.parent_of(n) for n in delta.added)}
        dirty |= {old_leaf, graph.leaf_node}
        marks = lod.update_marks(graph, marks, (n for n in dirty if n is not None), "trip")  # any iterable
        fresh = node_marks(graph, "trip")
        assert marks == fresh and list(marks) == list(fresh)
    assert removed >= 2 and quick and all(quick)


def test_marks_updated_when_a_node_comes_or_goes_in_the_middle_of_the_order() -> None:
    """A node added or removed in the middle of the graph's order moves every node after it: the
    kept marks are renumbered (or made afresh) and equal fresh ones either way."""
    from desktop_app.present.lod import update_marks
    from tests.present.builders import index_of, msg, synthetic_session

    entries = synthetic_session(400)
    leaf = entries[-1]["id"]
    middle = entries[120]["id"]
    extra = msg("xx", middle, "user", "a side question")
    without = build_view_graph(index_of(entries), leaf, "all", folding=False)
    with_extra = build_view_graph(index_of([*entries, extra]), leaf, "all", folding=False)
    order = list(with_extra.nodes)
    assert 0 < order.index("xx") < len(order) - 50  # really in the middle
    dirty = {"xx", middle}
    grown = update_marks(with_extra, node_marks(without, "t"), dirty, "t")
    assert grown == node_marks(with_extra, "t") and list(grown) == list(node_marks(with_extra, "t"))
    shrunk = update_marks(without, node_marks(with_extra, "t"), dirty, "t")
    assert shrunk == node_marks(without, "t") and list(shrunk) == list(node_marks(without, "t"))


@pytest.mark.parametrize("case", ["gen-0031", "gen-0004", "gen-0017"])
def test_landmarks_are_the_prefix_of_the_ranked_marks(case: str, tmp_path: object) -> None:
    """:func:`landmarks_of` slices instead of testing each mark: the same marks, in the same order,
    as testing each, because every landmark role ranks before runs and plain entries."""
    from pathlib import Path

    from desktop_app.present.lod import LANDMARK_ROLES, landmarks_of
    from tests.ui.conformance_cases import open_copy

    manager = open_copy(case, Path(str(tmp_path)))
    graph = build_view_graph(manager.index, manager.leaf_id, "all", folding=False)
    ranked = list(node_marks(graph, "trip").values())
    tested = [m for m in ranked if m.role in LANDMARK_ROLES]
    assert tested and len(tested) < len(ranked)  # both kinds present: the cut is somewhere real
    assert landmarks_of(ranked) == tested
    assert landmarks_of([]) == []


def test_quick_marks_refuse_marks_out_of_rank_order() -> None:
    """The append path finds a mark by bisection at its rank; handed marks not in rank order it
    takes the exact way and leaves them as they were, never a wrong mapping, even ``in_place``."""
    from desktop_app.present import lod
    from tests.present.builders import index_of, msg, synthetic_session

    entries = synthetic_session(200)
    # the leaf is the last node in order, so an entry under it comes at the end (an append)
    last = str(list(build_view_graph(index_of(entries), None, "all", folding=False).nodes)[-1])
    graph = build_view_graph(index_of(entries), last, "all", folding=False)
    marks = node_marks(graph, "t")
    extra = msg("zz", last, "user", "one more")
    grown = build_view_graph(index_of([*entries, extra]), "zz", "all", folding=False)
    assert list(grown.nodes)[-1] == "zz"
    fresh = node_marks(grown, "t")
    dirty: set[Node] = {"zz", last}

    shuffled = lod.Marks(reversed(marks.ranked))
    before = list(shuffled.ranked)
    assert lod._appended_marks(grown, shuffled, dirty, dirty, "t") is not None  # the append shape holds...
    again = lod.update_marks(grown, shuffled, dirty, "t", in_place=True)
    assert again is not shuffled and list(shuffled.ranked) == before  # ...but the bisection refuses
    assert again == fresh and list(again) == list(fresh)

    quick = lod.update_marks(grown, marks, dirty, "t", in_place=True)
    assert quick is marks  # the owner's cache, changed where it is
    assert quick == fresh and list(quick) == list(fresh) and list(quick.ranked) == list(fresh.ranked)


def test_marks_are_a_mapping_in_rank_order() -> None:
    """:class:`Marks` looks up by node and iterates most important first; a copy is independent."""
    marks = _marks()
    ranks = [m.rank for m in marks.ranked]
    assert ranks == sorted(ranks) and list(marks) == [m.node for m in marks.ranked]
    assert marks["a4"].role == "active-leaf" and "a4" in marks and "nope" not in marks
    assert dict(marks) == {m.node: m for m in marks.ranked} == marks
    twin = marks.copy()
    assert twin == marks and twin.ranked is not marks.ranked
    assert twin._swap(["a4"], [])
    assert "a4" not in twin and "a4" in marks and len(twin) == len(marks) - 1


def test_compaction_words_never_say_zero_tokens() -> None:
    """pi prints a compaction of under 500 tokens as ``0k``; the canvas must not read as "nothing"."""
    from desktop_app.present.lod import compaction_words

    assert compaction_words("[compaction: 18k tokens]") == "18k tokens before"
    assert compaction_words("[compaction: 0k tokens]") == "under 1k tokens before"
    assert compaction_words("something else") == "tokens before unknown"
