"""The view graph model against the session files (no Qt): structure, filters, folding, appends."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import networkx as nx
import pytest

from desktop_app.present.filters import FILTER_MODES, pi_visible
from desktop_app.present.graph_model import ViewGraphModel, build_view_graph
from desktop_app.present.text import entry_kind
from desktop_app.present.viewgraph import SegmentKey, ViewGraph
from desktop_app.session import SessionManager
from tests.present.builders import as_networkx, index_of, msg, other, synthetic_session, tool_call_assistant
from tests.ui.conformance_cases import CASES, FIXTURES

OpenCase = Callable[[str], SessionManager]

# --------------------------------------------------------------------------- pi's rule, from the spec

_SETTINGS = {"label", "custom", "model_change", "thinking_level_change", "session_info"}


def spec_visible(entry: dict[str, Any], mode: str, leaf: str | None, labels: dict[str, str]) -> bool:
    """pi-spec §6.2 written out independently of the model's code."""
    message = entry.get("message") if entry.get("type") == "message" else None
    role = message.get("role") if isinstance(message, dict) else None
    if role == "assistant" and entry.get("id") != leaf:
        content = message.get("content")  # type: ignore[union-attr]
        if isinstance(content, str):
            texts = [content]
        else:
            texts = [b.get("text") for b in content or [] if isinstance(b, dict) and b.get("type") == "text"]
        has_text = any(isinstance(t, str) and t.strip() for t in texts)
        stop = message.get("stopReason")  # type: ignore[union-attr]
        if not has_text and (not stop or stop in ("stop", "toolUse")):
            return False
    if mode == "user-only":
        return role == "user"
    if mode == "labeled-only":
        return entry.get("id") in labels
    if mode == "all":
        return True
    if entry.get("type") in _SETTINGS:
        return False
    if mode == "no-tools":
        return role != "toolResult"
    return True


def _reject(name: str) -> Any:
    raise ValueError(name)


def raw_ids_and_parents(case: str) -> tuple[list[str], dict[str, Any]] | None:
    """Distinct ids and parentIds straight from the file (v3 files only: older ones get new ids)."""
    ids: dict[str, Any] = {}
    header: dict[str, Any] | None = None
    for line in (FIXTURES / f"{case}.jsonl").read_text(encoding="utf-8").lstrip("\ufeff").split("\n"):
        if not line.strip():
            continue
        try:
            obj = json.loads(line, parse_constant=_reject)  # JSON.parse has no NaN/Infinity
        except ValueError:
            continue
        if not isinstance(obj, dict):
            continue
        if header is None:
            header = obj
            continue
        if obj.get("type") == "session":
            continue
        ids[obj.get("id")] = obj.get("parentId")
    if header is None or header.get("type") != "session" or header.get("version") != 3:
        return None
    return list(ids), ids


def entries_by_id(manager: SessionManager) -> dict[str, dict[str, Any]]:
    return dict(manager.index.by_id)


# --------------------------------------------------------------------------- structure


@pytest.mark.parametrize("case", CASES)
def test_unfolded_all_is_the_file(case: str, open_case: OpenCase) -> None:
    manager = open_case(case)
    graph = build_view_graph(manager.index, manager.leaf_id, "all", folding=False)
    by_id = entries_by_id(manager)
    assert set(graph.nodes) == set(by_id)
    expected_edges = {
        (e["parentId"], i) for i, e in by_id.items() if e.get("parentId") in by_id and e["parentId"] != i
    }
    assert set(graph.edges()) == expected_edges
    for node in graph.nodes:
        parent = by_id[node].get("parentId")
        assert (graph.parent_of(node) is not None) == (parent in by_id and parent != node)
    assert graph.broken_edges == []
    raw = None if manager.report.migrated or manager.read_only else raw_ids_and_parents(case)
    if raw is not None:  # cross-check against the file itself, not only the engine
        ids, parents = raw
        assert set(graph.nodes) == set(ids)
        assert set(graph.edges()) == {(p, i) for i, p in parents.items() if p in parents and p != i}


@pytest.mark.parametrize("case", CASES)
def test_node_attributes(case: str, open_case: OpenCase) -> None:
    manager = open_case(case)
    graph = build_view_graph(manager.index, manager.leaf_id, "all", folding=False)
    path = {e["id"] for e in manager.get_branch()}
    for node, attrs in graph.nodes.items():
        entry = manager.index.by_id[node]
        assert attrs.kind == entry_kind(entry)
        assert attrs.on_active_path == (node in path)
        assert attrs.is_leaf == (node == manager.leaf_id)
        assert attrs.label == manager.get_label(node)
        assert attrs.ids == (node,) and attrs.count == 1
        assert isinstance(attrs.text, str)
    if manager.leaf_id is not None:
        assert graph.leaf_node == manager.leaf_id


def test_duplicate_ids_later_entry_wins(open_case: OpenCase) -> None:
    manager = open_case("edge-duplicate-ids")
    graph = build_view_graph(manager.index, manager.leaf_id, "all", folding=False)
    assert sorted(graph.nodes) == ["dup00001", "dup00002", "dup00003", "dup00005", "dup00006"]
    assert "SAME id" in graph.nodes["dup00003"].text


def test_orphans_and_multiple_roots(open_case: OpenCase) -> None:
    manager = open_case("edge-orphans-multiroot")
    graph = build_view_graph(manager.index, manager.leaf_id, "all", folding=False)
    roots = [n for n in graph if graph.parent_of(n) is None]
    assert len(roots) > 1
    assert set(graph.roots) == set(roots)


def test_parent_cycle_is_broken_at_the_repeated_node() -> None:
    entries = [msg("a", None, "user", "root"), msg("x", "y", "user", "x"), msg("y", "x", "assistant", "y")]
    graph = build_view_graph(index_of(entries), "y", "all", folding=False)
    assert set(graph.nodes) == {"a", "x", "y"}
    assert nx.is_forest(as_networkx(graph))
    assert len(graph.broken_edges) == 1
    parent, child = graph.broken_edges[0]
    assert {parent, child} == {"x", "y"} and graph.parent_of(child) is None


# --------------------------------------------------------------------------- filters


def nearest_visible_ancestor(manager: SessionManager, entry_id: str, visible: set[str]) -> str | None:
    for ancestor in reversed(manager.index.get_branch(entry_id)[:-1]):
        if ancestor["id"] in visible:
            return str(ancestor["id"])
    return None


@pytest.mark.parametrize("case", CASES)
def test_filters_hide_what_pi_hides(case: str, open_case: OpenCase) -> None:
    """In every filter mode (one test per case: five items per case cost more in pytest than in work)."""
    manager = open_case(case)
    index, leaf = manager.index, manager.leaf_id
    labels = index.labels
    by_id = entries_by_id(manager)
    for mode in FILTER_MODES:
        graph = build_view_graph(index, leaf, mode, folding=False)
        pi_shows = {i for i, e in by_id.items() if spec_visible(e, mode, leaf, labels)}
        assert {i for i, e in by_id.items() if pi_visible(e, mode, leaf, labels)} == pi_shows, mode
        if mode == "all":  # the canvas' "all" is everything (the one documented difference from pi's list)
            assert set(graph.nodes) == set(by_id)
        else:
            assert set(graph.nodes) == pi_shows, mode
        visible = set(graph.nodes)
        for node in graph.nodes:  # hidden entries are skipped: children hang from the nearest visible ancestor
            parents = [p for p in [graph.parent_of(node)] if p is not None]
            expected = nearest_visible_ancestor(manager, node, visible)
            assert parents == ([expected] if expected is not None else []), (mode, node)


def _small_tree() -> list[dict[str, Any]]:
    return [
        msg("u1", None, "user", "hello"),
        other("model_change", "m1", "u1", provider="p", modelId="x"),
        tool_call_assistant("a1", "m1", "c1"),
        msg("t1", "a1", "toolResult", "file", call="c1"),
        msg("a2", "t1", "assistant", "done"),
        other("label", "l1", "a2", targetId="u1", label="start"),
        msg("a3", "l1", "assistant", "", stopReason="error", errorMessage="boom"),
        other("custom_message", "cm", "a3", customType="note", content="hi", display=True),
        other("session_info", "si", "cm", name="title"),
        msg("u2", "si", "user", "again"),
        tool_call_assistant("a4", "u2", "c2"),
    ]


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("default", ["u1", "t1", "a2", "a3", "cm", "u2", "a4"]),
        ("no-tools", ["u1", "a2", "a3", "cm", "u2", "a4"]),
        ("user-only", ["u1", "u2"]),
        ("labeled-only", ["u1"]),
        ("all", ["u1", "m1", "a1", "t1", "a2", "l1", "a3", "cm", "si", "u2", "a4"]),
    ],
)
def test_filter_rules_by_hand(mode: str, expected: list[str]) -> None:
    index = index_of(_small_tree())
    graph = build_view_graph(index, "a4", mode, folding=False)
    assert set(graph.nodes) == set(expected)
    if mode == "default":
        # a1 (tool calls only) is hidden, its tool result hangs from u1; a4 is kept: it is the leaf
        assert graph.parent_of("t1") == "u1"
        assert graph.parent_of("u2") == "cm"  # session_info skipped


def test_tool_call_assistant_hidden_once_it_is_no_longer_the_leaf() -> None:
    entries = _small_tree()
    assert "a4" in build_view_graph(index_of(entries), "a4", "default").nodes
    assert "a4" not in build_view_graph(index_of(entries), "u2", "default").nodes


# --------------------------------------------------------------------------- folding


def _check_folding(unfolded: ViewGraph, folded: ViewGraph, manager: SessionManager) -> None:
    owner: dict[str, Any] = {}
    for node, attrs in folded.nodes.items():
        for entry_id in attrs.ids:
            assert entry_id not in owner, "an entry is in two nodes"
            owner[entry_id] = node
        assert attrs.count == len(attrs.ids)
        if isinstance(node, SegmentKey):
            ids = attrs.ids
            assert len(ids) >= 2 and node.first_id == ids[0]
            for a, b in zip(ids, ids[1:], strict=False):  # a segment is a chain of the unfolded graph
                assert unfolded.parent_of(b) == a
        else:
            assert attrs.ids == (node,)
    assert set(owner) == set(unfolded.nodes), "every visible entry is in exactly one node"
    nx_unfolded, nx_folded = as_networkx(unfolded), as_networkx(folded)
    for a, b in nx_unfolded.edges:  # edges fold into segments or map onto edges
        assert owner[a] == owner[b] or nx_folded.has_edge(owner[a], owner[b])
    for a, b in nx_folded.edges:
        assert nx_unfolded.has_edge(folded.nodes[a].ids[-1], folded.nodes[b].ids[0])
    for root in [n for n in unfolded if unfolded.parent_of(n) is None]:  # reachability, in full
        reach = nx.descendants(nx_unfolded, root) | {root}
        folded_reach = nx.descendants(nx_folded, owner[root]) | {owner[root]}
        assert reach == {i for n in folded_reach for i in folded.nodes[n].ids}
    labels = manager.index.labels
    leaf_node = folded.leaf_node
    for node, attrs in folded.nodes.items():  # what is never folded
        if not isinstance(node, SegmentKey):
            continue
        assert node != leaf_node
        for entry_id in attrs.ids:
            kind = entry_kind(manager.index.by_id[entry_id])
            assert kind not in ("compaction", "branch_summary")
            assert entry_id not in labels
            assert entry_id != manager.leaf_id
            assert len(unfolded.children_of(entry_id)) <= 1


@pytest.mark.parametrize("case", CASES)
def test_folding_preserves_reachability(case: str, open_case: OpenCase) -> None:
    manager = open_case(case)
    for mode in ("all", "default", "no-tools"):
        unfolded = build_view_graph(manager.index, manager.leaf_id, mode, folding=False)
        folded = build_view_graph(manager.index, manager.leaf_id, mode, folding=True)
        _check_folding(unfolded, folded, manager)
        if len(unfolded) > 50:
            assert len(folded) < len(unfolded), mode


def test_expanding_a_segment_shows_its_entries(open_case: OpenCase) -> None:
    manager = open_case("gen-0004")
    model = ViewGraphModel(manager.index, manager.leaf_id, "all", folding=True)
    segment = next(n for n in model.graph if isinstance(n, SegmentKey))
    ids = model.graph.nodes[segment].ids
    model.expand(segment)
    assert segment not in model.graph and all(i in model.graph for i in ids)
    assert model.graph.run_of[ids[1]] == ids[0]
    model.collapse(ids[1])
    assert segment in model.graph
    assert model.graph.node_for_entry(ids[-1]) == segment


# --------------------------------------------------------------------------- incremental


def _structure(graph: nx.DiGraph) -> tuple[set[Any], set[Any]]:
    return set(graph.nodes), set(graph.edges())


@pytest.mark.parametrize("mode", ["all", "default"])
def test_append_to_leaf_adds_one_node_without_rebuild(mode: str, open_case: OpenCase) -> None:
    manager = open_case("gen-0003")
    model = ViewGraphModel(manager.index, manager.leaf_id, mode, folding=True)
    before = _structure(model.graph)
    graph_object = model.graph
    old_leaf = manager.leaf_id
    new_id = manager.append_message(
        {"role": "user", "content": [{"type": "text", "text": "one more"}], "timestamp": 1}
    )
    delta = model.add_entry(manager.get_entry(new_id))  # type: ignore[arg-type]
    assert not delta.rebuilt and model.graph.nodes is graph_object.nodes  # grown in place, not rebuilt
    assert delta.added == [new_id] and delta.removed == []
    nodes, edges = _structure(model.graph)
    assert nodes == before[0] | {new_id}
    assert edges - before[1] == {(model.graph.node_for_entry(old_leaf), new_id)}
    attrs = model.graph.nodes[new_id]
    assert attrs.is_leaf and attrs.on_active_path and attrs.kind == "user"
    assert model.graph.leaf_node == new_id
    if old_leaf in model.graph:
        assert not model.graph.nodes[old_leaf].is_leaf
    fresh = build_view_graph(manager.index, new_id, mode, folding=False)  # same entries as a rebuild
    unfolded_ids = {i for n in model.graph for i in model.graph.nodes[n].ids}
    assert unfolded_ids == set(fresh.nodes)


def test_streaming_turn_in_default_mode_hides_the_tool_call_assistant() -> None:
    entries = [msg("u1", None, "user", "go")]
    index = index_of(entries)
    model = ViewGraphModel(index, "u1", "default", folding=False)
    for entry in (
        tool_call_assistant("a1", "u1", "c1"),
        msg("t1", "a1", "toolResult", "data", call="c1"),
        msg("a2", "t1", "assistant", "answer"),
    ):
        index.add(entry)
        delta = model.add_entry(entry)
        assert not delta.rebuilt
        assert _structure(model.graph) == _structure(build_view_graph(index, entry["id"], "default", False))
    assert model.graph.nodes["t1"].text == "[read: a.py]"


def test_an_appended_system_message_is_a_prompt_or_a_change_as_in_a_rebuild() -> None:
    # pi 1.6.0 records a system message before a prompt; whether one lies above decides its words.
    # Appends answer it from the model's set of system ids (no walk to the root when there is none).
    entries = [msg("u1", None, "user", "go"), msg("a1", "u1", "assistant", "ok")]
    entries += [msg("s0", "u1", "system", "Side branch prompt.")]  # on another branch: not above a1
    index = index_of(entries)
    model = ViewGraphModel(index, "a1", "all", folding=False)
    added = [
        msg("s1", "a1", "system", "Be terse."),  # none above: the prompt itself
        msg("u2", "s1", "user", "next"),
        msg("s2", "u2", "system", "Be brief."),  # s1 above: a change
    ]
    for entry in added:
        index.add(entry)
        delta = model.add_entry(entry)
        assert not delta.rebuilt
        fresh = build_view_graph(index, entry["id"], "all", folding=False)
        assert model.graph.nodes[entry["id"]] == fresh.nodes[entry["id"]]
    assert model.graph.nodes["s1"].text.startswith("System prompt ·")
    assert model.graph.nodes["s2"].text.startswith("System prompt changed ·")
    assert model.graph.nodes["s0"].text.startswith("System prompt ·")


def test_set_leaf_restyles_paths_like_a_rebuild(open_case: OpenCase) -> None:
    manager = open_case("gen-0006")
    model = ViewGraphModel(manager.index, manager.leaf_id, "all", folding=False)
    targets = [n for n in model.graph if not model.graph.children_of(n)][:4]
    for target in targets:
        delta = model.set_leaf(target)
        fresh = build_view_graph(manager.index, target, "all", folding=False)
        assert _structure(model.graph) == _structure(fresh)
        for node in fresh.nodes:
            assert model.graph.nodes[node] == fresh.nodes[node], (target, node)
        assert model.graph.leaf_node == fresh.leaf_node
        assert not delta.rebuilt


def test_label_append_rebuilds(open_case: OpenCase) -> None:
    manager = open_case("gen-0009")
    model = ViewGraphModel(manager.index, manager.leaf_id, "labeled-only", folding=True)
    target = manager.get_branch()[1]["id"]
    label_id = manager.append_label_change(target, "here")
    delta = model.add_entry(manager.get_entry(label_id))  # type: ignore[arg-type]
    assert delta.rebuilt and target in model.graph and model.graph.nodes[target].label == "here"


def test_large_session_model_is_linear_enough() -> None:
    entries = synthetic_session(10_000)
    index = index_of(entries)
    model = ViewGraphModel(index, entries[-1]["id"], "default", folding=True)
    assert len(model.graph) < 2_000  # folded
    unfolded = build_view_graph(index, entries[-1]["id"], "all", folding=False)
    assert len(unfolded) == 10_000


def test_the_skeleton_keeps_an_only_child_without_a_list_and_runs_share_one_key() -> None:
    """Memory at 100,000 entries: a parent's only child is kept as the id itself (a list for each
    was ~8 MB), a list from the second child on, in pi's order; every member of a folded run
    maps to the one key object of its node (one tuple a member was 78,000 at 100k)."""
    from desktop_app.present.graph_model import _skeleton

    entries = synthetic_session(600, branch_rate=0.05, seed=3)
    index = index_of(entries)
    sk = _skeleton(index)
    singles = [kids for kids in sk.children.values() if isinstance(kids, str)]
    lists = [kids for kids in sk.children.values() if isinstance(kids, list)]
    assert singles and lists and all(len(kids) >= 2 for kids in lists)
    for entry in entries:  # the same children, in the same order, as the index gives them
        assert list(sk.kids(entry["id"])) == [c["id"] for c in sort_children(index, entry["id"])]
    sk.add_child("p", "x")
    assert sk.children["p"] == "x"
    sk.add_child("p", "y")
    assert sk.children["p"] == ["x", "y"]
    sk.remove_child("p", "x")
    assert sk.children["p"] == "y" and list(sk.kids("p")) == ["y"]
    sk.remove_child("p", "y")
    assert "p" not in sk.children and sk.kids("p") == ()

    graph = build_view_graph(index, entries[-1]["id"])
    keys = {}
    for entry_id, node in graph.node_of.items():
        if isinstance(node, SegmentKey):
            assert keys.setdefault(node, node) is node, f"{entry_id}: a key of its own"
    assert keys


def sort_children(index: Any, entry_id: str) -> list[dict[str, Any]]:
    """pi's child order (timestamp, oldest first) of ``entry_id``'s children in the index."""
    from desktop_app.session.tree import TreeNode, sort_by_timestamp

    nodes = [TreeNode(c) for c in index.get_children(entry_id)]
    return [n.entry for n in sort_by_timestamp(nodes)]


@pytest.mark.parametrize("case", CASES)
def test_the_skeleton_reads_parents_from_the_entries(case: str, open_case: OpenCase) -> None:
    """No map of its own from id to parent: ``parent_of`` reads the entry's ``parentId`` (a named,
    other, present entry, else a root; a cut cycle is a root), and the children agree with it."""
    from desktop_app.present.graph_model import _skeleton

    index = open_case(case).index
    sk = _skeleton(index)
    assert not hasattr(sk, "parent")
    named = [k for k in index.by_id if isinstance(k, str) and k]
    for entry_id in named:
        raw = index.by_id[entry_id].get("parentId")
        expected = raw if isinstance(raw, str) and raw and raw != entry_id and raw in index.by_id else None
        if entry_id in sk.cut:
            expected = None
        assert sk.parent_of(entry_id) == expected
        if expected is not None:
            assert entry_id in sk.kids(expected)
        else:
            assert entry_id in sk.roots


def test_a_cut_cycle_makes_a_root_read_from_the_entries() -> None:
    entries = [msg("a", "c", "user", "1"), msg("b", "a", "assistant", "2"), msg("c", "b", "user", "3")]
    from desktop_app.present.graph_model import _skeleton

    sk = _skeleton(index_of(entries))
    assert len(sk.cut) == 1 and len(sk.roots) == 1 and sk.roots[0] in sk.cut
    (cut,) = sk.cut
    assert sk.parent_of(cut) is None and sk.broken_edges == [(index_of(entries).by_id[cut]["parentId"], cut)]


@pytest.mark.parametrize("folding", [False, True])
def test_set_leaf_between_far_and_near_branches_marks_the_whole_new_path(folding: bool) -> None:
    """The fast switch reads only the entries below where the two paths meet. Switching between
    leaves, inner nodes and far branches, every node is on the active path exactly when one of
    its entries is on the new leaf's whole path (walked from scratch), only the leaf's node is
    flagged a leaf, and the folds stay as they were; unfolded, the graph is what building it
    afresh gives, node for node."""
    entries = synthetic_session(900, branch_rate=0.08, seed=11)
    index = index_of(entries)
    model = ViewGraphModel(index, entries[-1]["id"], "default", folding=folding)
    standing = [n for n in model.graph if isinstance(n, str)]
    targets = standing[::37] + [n for n in standing if not model.graph.children_of(n)][:6] + standing[:3]
    fast = 0
    for target in targets:
        before = _structure(model.graph)
        delta = model.set_leaf(target)
        if delta.rebuilt:
            continue
        fast += 1
        graph = model.graph
        assert _structure(graph) == before  # nothing folds or unfolds under the user
        on_path = {e["id"] for e in index.get_branch(target)}
        for node, view in graph.nodes.items():
            assert view.on_active_path == any(i in on_path for i in view.ids), (target, node)
            assert view.is_leaf == (node == target), (target, node)
        if not folding:
            fresh = build_view_graph(index, target, "default", folding=False)
            assert _structure(graph) == _structure(fresh)
            assert all(graph.nodes[node] == fresh.nodes[node] for node in fresh.nodes)
    assert fast >= len(targets) // 2  # most took the fast way (the way this test is about)


def test_a_label_of_another_type_reaches_the_canvas_as_text() -> None:
    """A label entry whose label is a list (a hand-edited file; pi keeps it as it is) crashed the
    window in Qt's paint (a segfault in elidedText): the node's label is text, as the chat shows it."""
    entries = [
        msg("u1", None, "user", "hi"),
        msg("a1", "u1", "assistant", "x"),
        other("label", "l1", "a1", targetId="u1", label=["<b>odd</b>", 1]),
    ]
    graph = build_view_graph(index_of(entries), "l1")
    labels = [node.label for node in graph.nodes.values() if node.label is not None]
    assert labels == ['["<b>odd</b>", 1]']
