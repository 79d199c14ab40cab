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
