"""``SessionIndex.path_to`` keeps recent paths (a 70,000-entry walk costs ~40 ms and one branch
switch asks several times): what it returns must always equal a walk from scratch."""

from __future__ import annotations

import random
from typing import Any

from desktop_app.session.tree import SessionIndex


def entry(entry_id: str, parent: str | None) -> dict[str, Any]:
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z"}


def walk(index: SessionIndex, entry_id: str) -> list[str]:
    """Root → entry by parentId, from scratch (the reference)."""
    out: list[str] = []
    current = index.by_id.get(entry_id)
    while current is not None and current["id"] not in out:  # pi stops at a repeated node
        out.append(current["id"])
        parent = current.get("parentId")
        current = index.by_id.get(parent) if parent else None
    return out[::-1]


def ids(path: list[dict[str, Any]]) -> list[str]:
    return [e["id"] for e in path]


def test_a_kept_path_is_a_fresh_list_each_time() -> None:
    index = SessionIndex.build([entry(str(i), str(i - 1) if i else None) for i in range(200)])
    first = index.get_branch("199")
    first.append({"id": "changed by the caller"})
    assert ids(index.get_branch("199")) == [str(i) for i in range(200)]
    assert index.get_branch("199") is not index.get_branch("199")


def test_an_append_continues_the_kept_path() -> None:
    index = SessionIndex.build([entry(str(i), str(i - 1) if i else None) for i in range(500)])
    assert len(index.get_branch("499")) == 500
    for i in range(500, 520):
        index.add(entry(str(i), str(i - 1)))
        assert ids(index.get_branch(str(i))) == [str(k) for k in range(i + 1)]


def test_a_parent_arriving_after_its_child_lengthens_the_childs_path() -> None:
    index = SessionIndex.build([entry("root", None), entry("child", "late"), entry("grandchild", "child")])
    assert ids(index.get_branch("grandchild")) == ["child", "grandchild"]  # stops at the missing parent
    index.add(entry("late", "root"))
    assert ids(index.get_branch("grandchild")) == ["root", "late", "child", "grandchild"]


def test_a_repeated_id_takes_over_as_in_pi() -> None:
    index = SessionIndex.build([entry("a", None), entry("b", "a"), entry("c", "b")])
    assert ids(index.get_branch("c")) == ["a", "b", "c"]
    index.add(entry("b", None))  # the later entry with id "b" is the one found
    assert ids(index.get_branch("c")) == ["b", "c"]


def test_cycles_still_end() -> None:
    index = SessionIndex.build([entry("a", "c"), entry("b", "a"), entry("c", "b"), entry("d", "c")])
    path = ids(index.get_branch("d"))
    assert path[-1] == "d" and len(path) == len(set(path)) == 4
    assert ids(index.get_branch("d")) == path


def test_random_trees_and_appends_match_a_walk_from_scratch() -> None:
    rng = random.Random(7)
    index = SessionIndex()
    known: list[str] = []
    for i in range(3_000):
        parent = None
        if known:  # mostly the newest entry (a conversation), sometimes anywhere (a branch), rarely a forward id
            roll = rng.random()
            parent = known[-1] if roll < 0.8 else rng.choice(known) if roll < 0.98 else f"e{i + rng.randint(1, 30)}"
        index.add(entry(f"e{i}", parent))
        known.append(f"e{i}")
        for probe in (known[-1], rng.choice(known), rng.choice(known[-50:])):
            assert ids(index.get_branch(probe)) == walk(index, probe)


def test_a_walk_that_does_not_remember_reads_kept_paths_but_never_changes_them() -> None:
    """``remember=False`` (a walk on a worker thread, the compaction's) gives the same path, as a
    list of its own, and leaves the kept paths exactly as they were: they belong to the loop's thread."""
    index = SessionIndex.build([entry(str(i), str(i - 1) if i else None) for i in range(300)])
    index.get_branch("250")  # kept
    kept = dict(index._paths)
    for target in ["299", "250", "100", "0"]:
        path = index.get_branch(target, remember=False)
        assert ids(path) == walk(index, target)
        assert dict(index._paths) == kept and all(index._paths[k] is kept[k] for k in kept)
        path.append({"id": "changed by the caller"})
        assert ids(index.get_branch(target, remember=False)) == walk(index, target)
    assert index.get_branch("299", remember=False) is not index.get_branch("299", remember=False)
    index.get_branch("299")
    assert len(index._paths) == len(kept) + 1  # remembering still works
