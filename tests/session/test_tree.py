"""The incrementally kept tree equals pi's full rebuild on every corpus file and on appends."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from desktop_app.session import SessionManager
from desktop_app.session.entries import sequential_ids
from desktop_app.session.tree import SessionIndex, TreeNode

from .helpers import assistant, user

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "conformance"


def shape(nodes: list[TreeNode]) -> list[Any]:
    out: list[Any] = []
    stack = [(0, n) for n in reversed(nodes)]
    while stack:
        depth, node = stack.pop()
        out.append((depth, id(node.entry), node.label, node.label_timestamp))
        stack.extend((depth + 1, c) for c in reversed(node.children))
    return out


@pytest.mark.parametrize("case", sorted(p.stem for p in FIXTURES.glob("*.jsonl")))
def test_incremental_tree_equals_full_rebuild(tmp_path: Path, case: str) -> None:
    copy = tmp_path / f"{case}.jsonl"
    shutil.copyfile(FIXTURES / f"{case}.jsonl", copy)
    with sequential_ids():
        manager = SessionManager.open(copy, fsync=False)
    index = manager.index
    assert shape(index.get_tree()) == shape(index.build_tree())


def test_children_arriving_before_parent_and_out_of_order_times() -> None:
    entries = [
        {"type": "message", "id": "c", "parentId": "p", "timestamp": "2025-01-01T00:00:03.000Z", "message": user("c")},
        {"type": "message", "id": "p", "parentId": None, "timestamp": "2025-01-01T00:00:01.000Z", "message": user("p")},
        {"type": "message", "id": "b", "parentId": "p", "timestamp": "2025-01-01T00:00:02.000Z", "message": user("b")},
        {"type": "message", "id": "d", "parentId": "p", "timestamp": "2025-01-01T00:00:02.000Z", "message": user("d")},
        {"type": "label", "id": "l", "parentId": "d", "timestamp": "2025-01-01T00:00:04.000Z", "targetId": "b", "label": "x"},
    ]
    index = SessionIndex.build(entries)
    tree = index.get_tree()
    assert [n.entry["id"] for n in tree] == ["p"]
    assert [c.entry["id"] for c in tree[0].children] == ["b", "d", "c"]
    assert tree[0].children[0].label == "x"
    assert shape(tree) == shape(index.build_tree())


def test_appends_keep_the_tree_current() -> None:
    manager = SessionManager.in_memory("/p")
    first = manager.append_message(user("1"))
    manager.append_message(assistant("2"))
    manager.branch(first)
    manager.append_message(assistant("sibling"))
    manager.append_label_change(first, "start")
    tree = manager.get_tree()
    assert tree[0].label == "start" and len(tree[0].children) == 2
    assert shape(tree) == shape(manager.index.build_tree())


_ENTRIES = [
    {"type": "message", "id": "c", "parentId": "p", "timestamp": "2025-01-01T00:00:03.000Z", "message": user("c")},
    {"type": "label", "id": "l0", "parentId": "c", "timestamp": "2025-01-01T00:00:03.500Z", "targetId": "d", "label": "early"},
    {"type": "message", "id": "p", "parentId": None, "timestamp": "2025-01-01T00:00:01.000Z", "message": user("p")},
    {"type": "message", "id": "b", "parentId": "p", "timestamp": "2025-01-01T00:00:02.000Z", "message": user("b")},
    {"type": "message", "id": "d", "parentId": "p", "timestamp": "2025-01-01T00:00:02.000Z", "message": user("d")},
    {"type": "label", "id": "l", "parentId": "d", "timestamp": "2025-01-01T00:00:04.000Z", "targetId": "b", "label": "x"},
    {"type": "label", "id": "l2", "parentId": "l", "timestamp": "2025-01-01T00:00:05.000Z", "targetId": "d"},
    {"type": "message", "id": "e", "parentId": "b", "timestamp": "2025-01-01T00:00:01.500Z", "message": user("e")},
]


@pytest.mark.parametrize("made_after", range(len(_ENTRIES) + 1))
def test_tree_made_at_any_point_then_kept_equals_full_rebuild(made_after: int) -> None:
    """The tree is made by the first get_tree (not on open) and kept up to date from then on:
    wherever that first call falls among the appends, the result is pi's full rebuild."""
    index = SessionIndex.build(_ENTRIES[:made_after])
    assert not index._nodes  # nothing made before it is asked for
    index.get_tree()
    for entry in _ENTRIES[made_after:]:
        index.add(entry)
    assert shape(index.get_tree()) == shape(index.build_tree())
    assert [c.entry["id"] for c in index.get_tree()[0].children] == ["b", "d", "c"]


def test_opening_a_file_makes_no_tree_nodes(tmp_path: Path) -> None:
    manager = SessionManager.create("/p", tmp_path, fsync=False)
    first = manager.append_message(user("1"))
    manager.append_message(assistant("2"))
    path = manager.session_file
    assert path is not None
    reopened = SessionManager.open(path, fsync=False)
    assert not reopened.index._nodes and not reopened.index._roots
    assert [n.entry["id"] for n in reopened.get_tree()] == [first]
    assert len(reopened.index._nodes) == 2


def test_one_child_is_kept_without_a_list() -> None:
    """Children lists are made from the second child on; callers always get a fresh list."""
    index = SessionIndex.build(_ENTRIES)
    assert index._children["b"] is _ENTRIES[7]  # the entry itself, no list around it
    assert isinstance(index._children["p"], list)
    children = index.get_children("b")
    assert children == [_ENTRIES[7]]
    children.append({})
    assert index.get_children("b") == [_ENTRIES[7]]
    assert [c["id"] for c in index.get_children("p")] == ["c", "b", "d"]
    assert index.get_children("missing") == []
    assert index.leaves() == ["l0", "l2", "e"]


def test_leaves_with_an_empty_object_as_an_entry() -> None:
    """``{}`` (no id, no parentId) is the child of the entries without an id: the key UNDEFINED."""
    index = SessionIndex.build([{}, {"type": "x", "id": "a", "parentId": None}])
    assert index.leaves() == ["a"]  # ``{}`` is its own child (parentId undefined = id undefined)
    assert index.get_children(None) == [{"type": "x", "id": "a", "parentId": None}]
