"""pi 1.6.0's new kinds as the window shows them, without Qt, on real pi 1.6.0 session files.

The expectations are worked out here from the raw entries (which edit is the latest for an entry,
which entries follow the newest compaction), not by calling the code under test, so a wrong
projection, a missed edit or a wrong summary line fails.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from desktop_app.compaction.audit import audit_compaction
from desktop_app.compaction.prepare import prepare_compaction
from desktop_app.compaction.tokens import CompactionSettings
from desktop_app.present.audit_words import checkpoint_words
from desktop_app.present.chat_feed import (
    EDIT_MARK,
    SYSTEM_MARK,
    AppendRows,
    ChatFeed,
    ShowContext,
    chat_messages,
)
from desktop_app.present.compaction_preview import planned_ids
from desktop_app.present.filters import is_visible
from desktop_app.present.graph_model import build_view_graph
from desktop_app.present.lens import context_lens
from desktop_app.present.pi16_words import system_summary, system_text
from desktop_app.present.reader import reader_page
from desktop_app.session import SessionManager
from desktop_app.session.profile import PI_0_73_1, PI_1_6_0, PiProfile

CASES16 = Path(__file__).resolve().parents[1] / "fixtures" / "conformance16" / "cases"
#: (case, leaf): leaves whose context holds system messages and both kinds of context edit, one
#: after a compaction with a systemMessage checkpoint; ``None`` is the file's own leaf.
LEAVES = [
    ("pi16-1611", "3dbbb034"),
    ("pi16-1617", "b7708308"),
    ("pi16-1610", "d6361c73"),
    ("pi16-1618", None),
    ("pi16-1607", None),
]
ALL16 = sorted(p.stem for p in CASES16.glob("*.jsonl"))


def open16(case: str, tmp_path: Path, profile: PiProfile = PI_1_6_0) -> SessionManager:
    target = tmp_path / f"{case}.jsonl"
    shutil.copy(CASES16 / f"{case}.jsonl", target)
    return SessionManager.open(target, fsync=False, profile=profile)


def _unmarked(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k not in (EDIT_MARK, SYSTEM_MARK)}


def _expected_edits(path: list[dict[str, Any]]) -> dict[str, tuple[str, str]]:
    """target id → (state, latest edit id) for the entries the model's context is built from:
    after the newest compaction (its kept range and what follows), the latest edit wins."""
    cut = max((i for i, e in enumerate(path) if e.get("type") == "compaction"), default=-1)
    start = 0
    if cut >= 0:
        first_kept = path[cut].get("firstKeptEntryId")
        start = next((i for i, e in enumerate(path[:cut]) if e.get("id") == first_kept), cut)
    latest: dict[str, dict[str, Any]] = {}
    for entry in path[start:]:
        if entry.get("type") == "context_edit":
            latest[entry["targetId"]] = entry
    in_context = {e.get("id") for e in path[start:] if e.get("type") in ("message", "custom_message")}
    return {
        target: ("omitted" if edit.get("replacement") is None else "replaced", edit["id"])
        for target, edit in latest.items()
        if target in in_context
    }


# ------------------------------------------------------------------------------------ chat


@pytest.mark.parametrize(("case", "leaf"), LEAVES)
def test_chat_marks_every_edited_entry_with_its_latest_edit(case: str, leaf: str | None, tmp_path: Path) -> None:
    session = open16(case, tmp_path)
    leaf = leaf or session.leaf_id
    rows = chat_messages(session, leaf)
    context = session.build_session_context(leaf).messages
    # The rows the model receives are exactly its context; omitted ones are extra, and marked.
    sent = [_unmarked(r) for r in rows if (r.get(EDIT_MARK) or {}).get("state") != "omitted"]
    assert sent == context
    marks = {r[EDIT_MARK]["targetId"]: (r[EDIT_MARK]["state"], r[EDIT_MARK]["editId"]) for r in rows if EDIT_MARK in r}
    expected = _expected_edits(session.get_branch(leaf))
    assert marks == {t: v for t, v in expected.items() if session.get_entry(t) is not None}
    assert "omitted" in {s for s, _ in marks.values()}
    # An omitted row is the entry's own message, as written; a replaced one is what the model reads.
    for row in rows:
        mark = row.get(EDIT_MARK)
        if mark is not None and mark["state"] == "omitted":
            assert _unmarked(row) == session.get_entry(mark["targetId"])["message"]
            assert row not in context


@pytest.mark.parametrize(("case", "leaf"), LEAVES)
def test_system_rows_say_prompt_or_change_and_name_the_tools(case: str, leaf: str | None, tmp_path: Path) -> None:
    session = open16(case, tmp_path)
    leaf = leaf or session.leaf_id
    rows = chat_messages(session, leaf)
    system = [(i, r) for i, r in enumerate(rows) if r.get("role") == "system"]
    assert system and all(SYSTEM_MARK in r for _, r in system)
    for n, (i, row) in enumerate(system):
        mark = row[SYSTEM_MARK]
        checkpoint = i + 1 < len(rows) and rows[i + 1].get("role") == "compactionSummary"
        assert mark["checkpoint"] == checkpoint
        assert mark["whole"] == (n == 0 or checkpoint)
        head = "System prompt ·" if mark["whole"] else "System prompt changed ·"
        assert mark["summary"].startswith(head)
        for name in [t["name"] for t in row.get("toolsAdded", [])][:8]:
            assert name in mark["summary"].split("tools added: ")[1]
        for name in [t["name"] for t in row.get("toolsRemoved", [])]:
            assert name in mark["summary"].split("tools removed: ")[1]
    path = session.get_branch(leaf)
    compactions = [e for e in path if e.get("type") == "compaction"]
    if compactions and "systemMessage" in compactions[-1]:
        assert _unmarked(rows[0]) == compactions[-1]["systemMessage"] and rows[0][SYSTEM_MARK]["checkpoint"]


def test_system_summary_names_what_changed() -> None:
    change = {
        "role": "system",
        "content": "",
        "sections": {"rules": "be brief", "plan_mode": None},
        "toolsAdded": [{"name": "todo", "description": "d", "parameters": {}}],
        "toolsRemoved": [{"name": "ls"}],
        "timestamp": 1,
    }
    assert system_summary(change, whole=False) == (
        "System prompt changed · sections: rules · sections removed: plan_mode · tools added: todo · tools removed: ls"
    )
    assert system_summary({"role": "system", "content": "Be terse.", "timestamp": 1}, whole=True) == (
        "System prompt · instructions: 9 characters"
    )


def test_a_context_without_pi16_kinds_is_passed_through(tmp_path: Path) -> None:
    session = open16("pi16-1618", tmp_path)
    first_user = next(e for e in session.get_entries() if e.get("message", {}).get("role") == "user")
    context = session.build_session_context(first_user["parentId"]).messages  # ends before any edit
    rows = chat_messages(session, first_user["parentId"])
    assert all(a is b or (a.get("role") == "system") for a, b in zip(rows, context, strict=True))


# ------------------------------------------------------------------------------------ lens


@pytest.mark.parametrize(("case", "leaf"), LEAVES)
def test_lens_rows_follow_the_projection_and_agree_with_the_chat(case: str, leaf: str | None, tmp_path: Path) -> None:
    session = open16(case, tmp_path)
    leaf = leaf or session.leaf_id
    lens = context_lens(session, leaf)
    context = session.build_session_context(leaf).messages
    assert len(lens.sent_rows) == len(context)
    assert all(row.entry_id is not None for row in lens.rows)  # every message names its entry
    assert [r.role for r in lens.sent_rows] == [m.get("role") for m in context]
    for row in lens.rows:
        if row.edit == "omitted":
            assert row.tokens == 0 and row.llm_role == "" and not row.covered_by_usage
    edited = {(r.entry_id, r.edit, r.edit_id) for r in lens.rows if r.edit}
    rows = chat_messages(session, leaf)
    marked = {(r[EDIT_MARK]["targetId"], r[EDIT_MARK]["state"], r[EDIT_MARK]["editId"]) for r in rows if EDIT_MARK in r}
    assert edited == marked and edited
    compactions = [e for e in session.get_branch(leaf) if e.get("type") == "compaction"]
    if compactions:
        head = [r for r in lens.rows if r.section == "compaction summary"]
        assert {r.entry_id for r in head} == {compactions[-1]["id"]}
        assert [r.role for r in head] == (["system"] if "systemMessage" in compactions[-1] else []) + ["compactionSummary"]


# ------------------------------------------------------------------------------------ filters and graph


def test_usage_entries_are_hidden_by_default_and_shown_in_all(tmp_path: Path) -> None:
    session = open16("pi16-1601", tmp_path)
    usage = [e for e in session.get_entries() if e.get("type") == "usage"]
    assert usage
    for entry in usage:
        assert not is_visible(entry, "default", session.leaf_id, {})
        assert not is_visible(entry, "no-tools", session.leaf_id, {})
        assert is_visible(entry, "all", session.leaf_id, {})
    default = build_view_graph(session.index, session.leaf_id, "default", folding=False)
    everything = build_view_graph(session.index, session.leaf_id, "all", folding=False)
    assert not [v for v in default.nodes.values() if v.kind == "usage"]
    assert sorted(v.entry_id for v in everything.nodes.values() if v.kind == "usage") == sorted(e["id"] for e in usage)


@pytest.mark.parametrize("case", ALL16)
def test_edits_and_system_messages_get_their_own_nodes(case: str, tmp_path: Path) -> None:
    session = open16(case, tmp_path)
    graph = build_view_graph(session.index, session.leaf_id, "default")
    entries = session.get_entries()
    edits = [e for e in entries if e.get("type") == "context_edit"]
    for edit in edits:  # never folded away, each linked to its target, shown whatever the filter says
        assert graph.nodes[edit["id"]].kind == "context_edit"
        if session.get_entry(edit["targetId"]) is not None:
            assert graph.node_of[edit["targetId"]] == edit["targetId"]
            assert (edit["id"], edit["targetId"]) in graph.edit_links
    assert len(graph.edit_links) == sum(1 for e in edits if session.get_entry(e["targetId"]) is not None)
    for entry in entries:
        if entry.get("type") == "message" and entry["message"].get("role") == "system":
            node = graph.nodes[entry["id"]]
            above = [e for e in session.get_branch(entry["parentId"]) if e.get("message", {}).get("role") == "system"]
            assert node.kind == "system"
            assert node.text.startswith("System prompt changed ·" if above else "System prompt ·")


# ------------------------------------------------------------------------------------ audit and reader


@pytest.mark.parametrize("case", [c for c in ALL16 if '"type":"compaction"' in (CASES16 / f"{c}.jsonl").read_text("utf-8")])
def test_audit_by_pi16_rules(case: str, tmp_path: Path) -> None:
    session = open16(case, tmp_path)
    for cid, entry in session.index.by_id.items():
        if entry.get("type") != "compaction":
            continue
        audit = audit_compaction(session.index, cid, PI_1_6_0)
        path = session.get_branch(cid)[:-1]
        ids = [e["id"] for e in path]
        system = {e["id"] for e in path if e.get("message", {}).get("role") == "system"}
        first_kept = entry.get("firstKeptEntryId")
        k = ids.index(first_kept) if first_kept in ids else len(ids)
        assert list(audit.kept_ids) == [i for i in ids[k:] if i not in system]
        assert not set(audit.summarized_ids) & (system | set(audit.kept_ids))
        previous = [i for i, e in enumerate(path) if e.get("type") == "compaction"]
        if previous:  # pi 1.6.0 starts after the previous compaction: never summarized again
            assert path[previous[-1]]["id"] not in audit.summarized_ids
        assert audit.system_message == entry.get("systemMessage")
        assert audit.keeps_nothing == (first_kept == cid)
        assert set(audit.checkpoint_ids) <= system


@pytest.mark.parametrize(("case", "leaf"), LEAVES)
def test_audit_agrees_with_prepare_compaction(case: str, leaf: str | None, tmp_path: Path) -> None:
    """Compact the path with pi 1.6.0's own plan: the audit's bands are the plan's ranges."""
    session = open16(case, tmp_path)
    if leaf is not None:
        session.branch(leaf)
    path = session.get_branch()
    preparation = prepare_compaction(path, CompactionSettings(keep_recent_tokens=2000), PI_1_6_0)
    assert preparation is not None
    planned = planned_ids(preparation, path)
    cid = session.append_compaction("S", preparation.first_kept_entry_id, preparation.tokens_before)
    audit = audit_compaction(session.index, cid, PI_1_6_0)
    system = {e["id"] for e in path if e.get("message", {}).get("role") == "system"}
    cut = preparation.first_kept_entry_index
    assert list(audit.summarized_ids) == [i for i in planned[preparation.boundary_start : cut] if i not in system]
    assert list(audit.kept_ids) == [i for i in planned[cut:] if i not in system]
    assert audit.system_message is not None and audit.system_message == session.get_entry(cid)["systemMessage"]


def test_reader_says_omitted_replaced_and_checkpoint(tmp_path: Path) -> None:
    session = open16("pi16-1611", tmp_path)
    session.branch("3dbbb034")
    expected = _expected_edits(session.get_branch())
    for target, (state, edit_id) in expected.items():
        page = reader_page(session, target)
        assert page is not None
        assert page.status.startswith(f"{state.capitalize()} by context edit {edit_id}")
    path = session.get_branch()
    last = max(i for i, e in enumerate(path) if e.get("type") == "compaction")
    before = [e for e in path[:last] if e.get("message", {}).get("role") == "system"]
    assert before
    for entry in before:
        page = reader_page(session, entry["id"])
        assert page is not None and page.status.startswith("In the compaction's system-prompt checkpoint")
    # pi 0.73.1 knows no checkpoint: the same entries are summarized (or kept) there.
    (tmp_path / "old").mkdir()
    old = open16("pi16-1611", tmp_path / "old", PI_0_73_1)
    old.branch("3dbbb034")
    for entry in before:
        page = reader_page(old, entry["id"])
        assert page is not None and not page.status.startswith("In the compaction's")


def test_appending_an_edit_rebinds_the_chat_and_a_prompt_change_adds_a_marked_row(tmp_path: Path) -> None:
    """An edit changes a row above the leaf: the feed shows the context again, marked. A system
    row's words depend on the rows above (a change if one is there): it is appended with the mark
    a rebind would give it (no 100,000-entry context rebuilt for it when a prompt is sent)."""
    session = open16("pi16-1618", tmp_path)
    feed = ChatFeed(session)
    feed.bind(session)
    events: list[Any] = []
    session.subscribe(events.append)
    user = next(e for e in reversed(session.get_branch()) if e.get("message", {}).get("role") == "user")
    session.append_context_edit(user["id"], None)
    updates = [u for event in events for u in feed.on_session_event(event)]
    assert [type(u) for u in updates] == [ShowContext]
    shown = updates[0].messages
    assert any((m.get(EDIT_MARK) or {}).get("targetId") == user["id"] for m in shown)
    events.clear()
    session.append_message({"role": "system", "content": "", "toolsRemoved": [{"name": "bash"}], "timestamp": 1})
    updates = [u for event in events for u in feed.on_session_event(event)]
    assert [type(u) for u in updates] == [AppendRows]
    row = updates[0].messages[-1]
    assert row[SYSTEM_MARK]["summary"] == "System prompt changed · tools removed: bash"
    assert row == chat_messages(session)[-1]  # what a rebind shows
    events.clear()
    session.append_usage("cache_warm", "anthropic", "m", {"input": 1, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1})
    assert [u for event in events for u in feed.on_session_event(event)] == []  # not in the context


def test_the_first_prompt_appended_is_whole_and_the_next_a_change_as_a_rebind_shows(tmp_path: Path) -> None:
    session = SessionManager.in_memory(str(tmp_path))
    session.append_message({"role": "user", "content": "hello", "timestamp": 1})
    feed = ChatFeed(session)
    feed.bind(session)
    events: list[Any] = []
    session.subscribe(events.append)
    for expected in ("System prompt · ", "System prompt changed · "):
        events.clear()
        session.append_message({"role": "system", "content": "Be terse.", "sections": {"rules": "r"}, "timestamp": 2})
        updates = [u for event in events for u in feed.on_session_event(event)]
        assert [type(u) for u in updates] == [AppendRows]
        row = updates[0].messages[-1]
        assert row[SYSTEM_MARK]["summary"].startswith(expected)
        assert row == chat_messages(session)[-1]


def test_system_text_shows_each_section_once_and_the_tools(tmp_path: Path) -> None:
    session = open16("pi16-1610", tmp_path)
    prompt = next(e["message"] for e in session.get_entries() if e.get("message", {}).get("role") == "system")
    text = system_text(prompt)
    for name, value in prompt["sections"].items():
        assert text.count(value) == 1
        if name != "preamble":
            assert text.count(f"<{name}>") == value.count(f"<{name}>") == 1
    for tool in prompt["toolsAdded"]:
        assert f"• {tool['name']}: " in text
    change = {"role": "system", "content": "Be brief.", "sections": {"plan_mode": None, "x": "y"}, "timestamp": 1}
    assert system_text(change) == "Be brief.\n\n<plan_mode> removed\n\n<x>\ny\n</x>"


def test_checkpoint_words_for_the_audit_panel(tmp_path: Path) -> None:
    session = open16("pi16-1611", tmp_path)
    audit = audit_compaction(session.index, "3157f904", PI_1_6_0)
    assert audit.system_message is not None and audit.checkpoint_ids
    words = checkpoint_words(audit.system_message, len(audit.checkpoint_ids))
    assert words.startswith("System prompt · ")
    assert f"takes in {len(audit.checkpoint_ids)} system message" in words
    assert checkpoint_words(None, 0).startswith("none")
