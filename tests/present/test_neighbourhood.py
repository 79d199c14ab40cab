"""The leaf's neighbourhood (the first picture of a big session) without Qt: what it holds, that it
is bounded whatever the session's size, and that it shows the leaf's surroundings as the whole graph
does."""

from __future__ import annotations

from typing import Any

from desktop_app.present.graph_model import ViewGraphModel, build_view_graph
from desktop_app.present.neighbourhood import NeighbourhoodLimits, leaf_neighbourhood, sub_index
from desktop_app.present.viewgraph import SegmentKey

from .builders import index_of, msg, other, synthetic_session


def chain(prefix: str, count: int, parent: str | None) -> list[dict[str, Any]]:
    out = []
    for i in range(count):
        entry_id = f"{prefix}{i}"
        out.append(msg(entry_id, parent, ("user", "assistant")[i % 2], f"{prefix} {i}"))
        parent = entry_id
    return out


def test_the_path_above_the_leaf_nearest_first_then_the_branches_leaving_it() -> None:
    main = chain("m", 50, None)
    side = chain("s", 5, "m45")  # leaves the path 4 entries above the leaf
    far = chain("f", 5, "m2")  # leaves it far up, out of the window of 10 path entries
    index = index_of(main + side + far)
    ids = leaf_neighbourhood(index, "m49", NeighbourhoodLimits(path=10, branch=3, total=100))
    assert ids[:10] == [f"m{i}" for i in range(49, 39, -1)]  # the leaf, then upwards
    assert ids[10:] == ["s0", "s1", "s2"]  # the nearby branch, breadth first, cut at 3
    assert not any(i.startswith("f") for i in ids)


def test_the_leafs_own_children_come_first_and_the_total_bounds_everything() -> None:
    main = chain("m", 30, None)
    below = chain("b", 10, "m20")  # the leaf was moved back to m20: its old continuation hangs below
    index = index_of(main + below)
    ids = leaf_neighbourhood(index, "m20", NeighbourhoodLimits(path=5, branch=4, total=12))
    assert ids[:5] == ["m20", "m19", "m18", "m17", "m16"]
    # each child of the leaf starts a branch of at most 4; the total cuts the second one at 3
    assert ids[5:] == ["m21", "m22", "m23", "m24", "b0", "b1", "b2"]


def test_bounded_at_any_size() -> None:
    limits = NeighbourhoodLimits(path=200, branch=20, total=600)
    for count in (1_000, 20_000):
        entries = synthetic_session(count, branch_rate=0.05, seed=3)
        index = index_of(entries)
        leaf = entries[-1]["id"]
        ids = leaf_neighbourhood(index, leaf, limits)
        assert leaf in ids and len(ids) <= limits.total
        assert len(set(ids)) == len(ids)


def test_unknown_leaf_and_cycles() -> None:
    index = index_of(chain("m", 5, None))
    assert leaf_neighbourhood(index, None) == []
    assert leaf_neighbourhood(index, "nope") == []
    looped = index_of([other("custom", "x", "y"), other("custom", "y", "x")])
    assert sorted(leaf_neighbourhood(looped, "x")) == ["x", "y"]  # the walk up stops at the cycle


def test_the_neighbourhood_graph_shows_the_leaf_as_the_whole_graph_does() -> None:
    entries = synthetic_session(3_000, branch_rate=0.04, seed=11)
    leaf = entries[-1]["id"]
    index = index_of(entries)
    whole = build_view_graph(index, leaf)
    ids = leaf_neighbourhood(index, leaf, NeighbourhoodLimits(path=120, branch=15, total=500))
    part = ViewGraphModel(sub_index(index, ids), leaf).graph
    assert part.leaf_node == whole.leaf_node == leaf
    assert len(part) < len(whole) / 3
    # the branch points just above the leaf are the same nodes with the same children there
    node = whole.parent_of(leaf)
    checked = 0
    while node is not None and checked < 5:
        if not isinstance(node, SegmentKey) and len(whole.children_of(node)) > 1:
            assert list(part.children_of(node)) == list(whole.children_of(node))
            checked += 1
        node = whole.parent_of(node)
        if node is not None and node not in part:
            break
    assert checked >= 1


def test_sub_index_keeps_labels_and_makes_cut_parents_roots() -> None:
    entries = chain("m", 6, None) + [other("label", "l1", "m5", targetId="m3", label="here")]
    index = index_of(entries)
    sub = sub_index(index, ["m5", "m4", "m3"])
    assert list(sub.by_id) == ["m5", "m4", "m3"] and sub.labels == {"m3": "here"}
    graph = build_view_graph(sub, "m5")
    assert graph.roots == ["m3"] and graph.nodes["m3"].label == "here"
