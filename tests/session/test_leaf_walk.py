"""``LeafWalk``: the context at every entry, grown from the parent's, is the fresh build's (issue 23).

``arbor inspect`` asks for the context at every entry; built one by one that is a walk to the root per
entry (quadratic on a long path). The walk grows each from its parent's where that gives the same
answer; these files are the places where it must not: cycles, a ``parentId`` of ``true`` or a list,
duplicate ids, children written before their parents, an edit written above the entry it targets,
compactions and branch summaries. Random trees are covered by the Hypothesis property in
test_context_core.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from desktop_app.inspection import build_report
from desktop_app.inspection.report import MessageTable, rle, rle_append
from desktop_app.session import context as context_module
from desktop_app.session.context import build_session_context
from desktop_app.session.leaf_walk import LeafWalk
from desktop_app.session.profile import PI_0_73_1, PI_1_6_0, PiProfile
from desktop_app.session.tree import SessionIndex

T = "2026-01-01T00:00:00.000Z"


def _user(entry_id: Any, parent: Any, text: str) -> dict[str, Any]:
    message = {"role": "user", "content": text, "timestamp": 1}
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": T, "message": message}


def _entry(entry_id: Any, parent: Any, kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "id": entry_id, "parentId": parent, "timestamp": T, **fields}


ODD_TREES: dict[str, list[dict[str, Any]]] = {
    "cycle": [_user("a", None, "a"), _user("b", "c", "b"), _user("c", "b", "c"), _user("d", "c", "d"), _user("e", "a", "e")],
    "self-parent": [_user("a", "a", "a"), _user("b", "a", "b")],
    "parent-true": [_user("a", None, "a"), _user(1, "a", "one"), _user("b", True, "b"), _user("c", "b", "c")],
    "parent-list": [_user("a", None, "a"), _user("b", ["a"], "b"), _user("c", "b", "c")],
    "duplicate-ids": [_user("a", None, "a"), _user("b", "a", "b1"), _user("b", "a", "b2"), _user("c", "b", "c")],
    "child-first": [_user("c", "b", "c"), _user("d", "c", "d"), _user("b", "a", "b"), _user("a", None, "a")],
    "edit-above-its-target": [
        _user("a", None, "a"),
        _entry("e", "a", "context_edit", targetId="b", replacement={"content": "edited"}),
        _user("b", "e", "b"),
        _user("c", "b", "c"),
    ],
    "summaries": [
        _user("a", None, "a"),
        _user("b", "a", "b"),
        _entry("k", "b", "compaction", summary="s", firstKeptEntryId="b", tokensBefore=5),
        _user("c", "k", "c"),
        _entry("s", "c", "branch_summary", fromId="a", summary="gone"),
        _entry("t", "s", "thinking_level_change", thinkingLevel="high"),
        _entry("m", "t", "model_change", provider="p", modelId="m"),
        _entry("x", "m", "custom_message", customType="x", content=None, display=True),
        _user("d", "x", "d"),
    ],
}


@pytest.mark.parametrize("profile", [PI_0_73_1, PI_1_6_0], ids=lambda p: p.version)
def test_every_context_is_the_fresh_builds_in_any_order(profile: PiProfile) -> None:
    for name, entries in ODD_TREES.items():
        index = SessionIndex.build(entries)
        ids = [e["id"] for e in entries] + ["", "no-such-id"]
        for order in (ids, ids[::-1], ids + ids):
            walk = LeafWalk(index, profile)
            for entry_id in order:
                want = build_session_context(entries, entry_id, index, profile=profile).to_json()
                assert walk.context_at(entry_id).to_json() == want, (name, entry_id)


def test_an_edit_above_its_target_still_edits_it() -> None:
    entries = ODD_TREES["edit-above-its-target"]
    walk = LeafWalk(SessionIndex.build(entries), PI_1_6_0)
    for entry_id in ("a", "e", "b", "c"):
        walk.context_at(entry_id)
    assert [m["content"] for m in walk.context_at("c").messages] == ["a", "edited", "c"]


def test_plain_paths() -> None:
    plain = {
        name: [LeafWalk(SessionIndex.build(entries), PI_1_6_0).is_plain(e) for e in entries]
        for name, entries in ODD_TREES.items()
    }
    assert plain["cycle"] == [True, False, False, False, True]
    assert plain["self-parent"] == [False, False]
    assert plain["parent-true"] == [True, True, False, False]
    assert plain["parent-list"] == [True, False, False]
    assert all(plain["child-first"]) and all(plain["summaries"])


def test_rle_append_is_rle_of_the_longer_list() -> None:
    """Every list of up to four indices from 0..4 (runs, gaps, repeats, steps down)."""
    lists: list[list[int]] = [[]]
    for _ in range(4):
        lists += [[*xs, k] for xs in lists if len(xs) == len(lists[-1]) for k in range(5)]
    for xs in lists:
        for k in range(6):
            assert rle_append(rle(xs), k) == rle([*xs, k]), (xs, k)


def test_inspect_reads_each_entry_a_bounded_number_of_times(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every entry's context, its refs and its path on a 600-entry path: each entry read a few times (the special
    leaves and the compaction sections at the leaf read the whole path), not once per entry below it
    (~300 times each)."""
    entries = [_user(f"u{k}", f"u{k - 1}" if k else None, f"m{k}") for k in range(600)]
    header = {"type": "session", "version": 3, "id": "s", "timestamp": T, "cwd": "/p"}
    path = tmp_path / "long.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in [header, *entries]), encoding="utf-8")
    reads = 0
    contribution = context_module._contribution

    def counted(entry: Any, empty_for_null: bool = True) -> Any:
        nonlocal reads
        reads += 1
        return contribution(entry, empty_for_null)

    refs = 0
    ref = MessageTable.ref

    def counted_ref(table: MessageTable, message: Any) -> int:
        nonlocal refs
        refs += 1
        return ref(table, message)

    monkeypatch.setattr(context_module, "_contribution", counted)
    monkeypatch.setattr(MessageTable, "ref", counted_ref)
    doc = build_report(path, sequential_ids_=True, profile=PI_1_6_0)
    assert doc["contexts"]["u599"]["messages"] == [[0, 599]] and doc["contexts"]["u1"]["messages"] == [0, 1]
    assert doc["branches"]["u599"] == [[0, 599]] and doc["branches"]["u1"] == [0, 1]
    assert reads < 50 * len(entries), reads
    assert refs < 50 * len(entries), refs  # each context's messages as table refs: the parent's and one more
