"""SessionManager follows pi's semantics (pi-spec §3, §4.1): appends, leaf rules, tree, forks."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from desktop_app.session import EntryAppended, LeafMoved, SessionError, SessionEvent, SessionManager
from desktop_app.session.paths import encode_cwd
from desktop_app.session.profile import PI_0_73_1

from .helpers import assistant, user


def lines(path: str | Path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()]


def test_create_names_file_as_pi_and_writes_header_with_first_entry(tmp_path: Path) -> None:
    manager = SessionManager.create("/work/proj", tmp_path)
    path = Path(manager.session_file or "")
    assert path.parent == tmp_path
    stamp, _, rest = path.name.partition("_")
    assert rest == f"{manager.session_id}.jsonl"
    assert ":" not in stamp and "." not in stamp
    assert manager.session_id[14] == "7"  # UUID v7 like pi 0.73.1
    assert not path.exists()  # nothing to write yet
    manager.append_message(user("hello"))
    header, entry = lines(path)
    assert list(header) == ["type", "version", "id", "timestamp", "cwd"]
    assert header["version"] == 3 and header["cwd"] == "/work/proj"
    assert list(entry) == ["type", "id", "parentId", "timestamp", "message"]
    assert entry["parentId"] is None and len(entry["id"]) == 8


def test_default_session_dir_uses_pi_cwd_encoding(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARBOR_HOME", str(tmp_path))
    manager = SessionManager.create("/Users/me/x")
    assert Path(manager.session_file or "").parent == tmp_path / "sessions" / "--Users-me-x--"
    assert encode_cwd("C:\\Users\\me\\x") == "--C--Users-me-x--"
    assert encode_cwd("/a:b/c") == "--a-b-c--"


def test_every_append_advances_leaf_and_returns_id(tmp_path: Path) -> None:
    m = SessionManager.create("/p", tmp_path, profile=PI_0_73_1)  # 1.6.0's shapes: tests/session/test_pi16_reader.py
    ids = [
        m.append_model_change("anthropic", "claude-x"),
        m.append_thinking_level_change("high"),
        m.append_message(user("q")),
        m.append_message(assistant("a")),
        m.append_custom_entry("ext", {"k": 1}),
        m.append_custom_message_entry("ext", "note", False, {"d": 1}),
        m.append_session_info("  named  "),
        m.append_compaction("sum", None, 123, {"readFiles": [], "modifiedFiles": []}, False),
    ]
    label_id = m.append_label_change(ids[2], "bookmark")
    ids.append(label_id)
    assert all(isinstance(i, str) for i in ids)
    assert m.leaf_id == label_id
    entries = m.get_entries()
    assert [e["parentId"] for e in entries] == [None, *ids[:-1]]
    assert m.get_session_name() == "named"
    assert m.get_label(ids[2]) == "bookmark"
    # pi's key orders (pi-spec §2.4)
    by_type = {e["type"]: list(e) for e in lines(m.session_file or "")[1:]}
    assert by_type["custom"] == ["type", "customType", "data", "id", "parentId", "timestamp"]
    assert by_type["custom_message"] == [
        "type", "customType", "content", "display", "details", "id", "parentId", "timestamp",
    ]
    assert by_type["compaction"] == [
        "type", "id", "parentId", "timestamp", "summary", "tokensBefore", "details", "fromHook",
    ]
    assert by_type["label"] == ["type", "id", "parentId", "timestamp", "targetId", "label"]
    assert by_type["session_info"] == ["type", "id", "parentId", "timestamp", "name"]
    assert by_type["model_change"] == ["type", "id", "parentId", "timestamp", "provider", "modelId"]


def test_label_on_unknown_entry_raises_and_empty_label_clears(tmp_path: Path) -> None:
    m = SessionManager.in_memory("/p")
    u = m.append_message(user("q"))
    with pytest.raises(SessionError, match="Entry nope not found"):
        m.append_label_change("nope", "x")
    m.append_label_change(u, "x")
    m.append_label_change(u, "")
    assert m.get_label(u) is None
    cleared = m.get_entries()[-1]
    assert "label" not in cleared


def test_empty_session_name_clears_name() -> None:
    m = SessionManager.in_memory("/p")
    m.append_session_info("first")
    m.append_session_info("   ")
    assert m.get_session_name() is None


def test_branch_reset_and_branch_with_summary() -> None:
    m = SessionManager.in_memory("/p", profile=PI_0_73_1)  # 0.73.1: fromId is the entry branched from
    u1 = m.append_message(user("1"))
    a1 = m.append_message(assistant("1"))
    m.append_message(user("2"))
    with pytest.raises(SessionError):
        m.branch("missing")
    m.branch(u1)
    sibling = m.append_message(assistant("other"))
    assert m.get_entry(sibling)["parentId"] == u1
    assert [c["id"] for c in m.get_children(u1)] == [a1, sibling]
    m.reset_leaf()
    root2 = m.append_message(user("new root"))
    assert m.get_entry(root2)["parentId"] is None
    summary_id = m.branch_with_summary(None, "went elsewhere")
    summary = m.get_entry(summary_id)
    assert summary["parentId"] is None and summary["fromId"] == "root"
    assert summary["details"] == {"abandonedLeafId": root2}
    s2 = m.branch_with_summary(u1, "x", {"readFiles": ["a"], "modifiedFiles": []}, False)
    assert m.get_entry(s2)["fromId"] == u1
    assert m.get_entry(s2)["details"]["abandonedLeafId"] == summary_id
    assert m.get_entry(s2)["details"]["readFiles"] == ["a"]
    hook = m.branch_with_summary(u1, "ext", {"custom": 1}, True)
    assert m.get_entry(hook)["details"] == {"custom": 1}  # an extension's details are left alone


def test_get_tree_sorts_children_by_timestamp_and_keeps_roots_in_file_order(tmp_path: Path) -> None:
    def line(entry_id: str, parent: str | None, ts: str) -> str:
        return json.dumps({"type": "message", "id": entry_id, "parentId": parent, "timestamp": ts,
                           "message": {"role": "user", "content": entry_id, "timestamp": 1}}) + "\n"

    path = tmp_path / "s.jsonl"
    path.write_text(
        '{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}\n'
        + line("root", None, "2025-01-01T00:00:01.000Z")
        + line("late", "root", "2030-01-01T00:00:00.000Z")
        + line("early", "root", "2020-01-01T00:00:00+02:00")
        + line("root2", None, "2019-01-01T00:00:00.000Z")
    )
    tree = SessionManager.open(path).get_tree()
    assert [n.entry["id"] for n in tree] == ["root", "root2"]
    assert [c.entry["id"] for c in tree[0].children] == ["early", "late"]


def test_build_session_context_follows_leaf() -> None:
    m = SessionManager.in_memory("/p")
    m.append_thinking_level_change("low")
    u = m.append_message(user("q"))
    m.append_message(assistant("a", provider="openai", model="gpt"))
    ctx = m.build_session_context()
    assert [msg["role"] for msg in ctx.messages] == ["user", "assistant"]
    assert ctx.thinking_level == "low"
    assert ctx.model == {"provider": "openai", "modelId": "gpt"}
    m.branch(u)
    assert [msg["role"] for msg in m.build_session_context().messages] == ["user"]
    m.reset_leaf()
    assert m.build_session_context().messages == []


def test_reopen_gives_leaf_at_last_line(tmp_path: Path) -> None:
    m = SessionManager.create("/p", tmp_path)
    u = m.append_message(user("q"))
    last = m.append_message(assistant("a"))
    m.branch(u)  # not persisted, as in pi
    reopened = SessionManager.open(m.session_file or "")
    assert reopened.leaf_id == last
    assert reopened.get_entries() == m.get_entries()


def test_create_branched_session_copies_path_and_labels(tmp_path: Path) -> None:
    m = SessionManager.create("/p", tmp_path)
    u = m.append_message(user("q"))
    a = m.append_message(assistant("a"))
    m.append_label_change(u, "start")
    label_ts = m.get_label_timestamp(u)
    m.branch(u)
    m.append_message(assistant("other branch"))
    old_file = m.session_file
    new_file = m.create_branched_session(a)
    assert new_file and new_file != old_file and m.session_file == new_file
    written = lines(new_file)
    assert written[0]["parentSession"] == old_file
    assert [e["id"] for e in written[1:3]] == [u, a]
    label = written[3]
    assert label["type"] == "label" and label["targetId"] == u and label["parentId"] == a
    assert label["timestamp"] == label_ts  # keeps the original label time (0.73.1)
    assert m.leaf_id == label["id"]
    assert oct(os.stat(new_file).st_mode & 0o777) == "0o600"
    with pytest.raises(SessionError):
        m.create_branched_session("missing")


def test_fork_from_copies_every_entry_migrated(tmp_path: Path) -> None:
    source = tmp_path / "v1.jsonl"
    source.write_text(
        '{"type":"session","id":"old","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/a"}\n'
        '{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}\n',
        encoding="utf-8",
    )
    before = source.read_bytes()
    forked = SessionManager.fork_from(source, "/b", tmp_path / "out")
    assert source.read_bytes() == before  # the source is not rewritten
    header, entry = lines(forked.session_file or "")
    assert header["cwd"] == "/b" and header["parentSession"] == str(source)
    assert entry["id"] and entry["parentId"] is None  # migrated, unlike pi's verbatim copy
    with pytest.raises(SessionError):
        SessionManager.fork_from(tmp_path / "missing.jsonl", "/b", tmp_path)


def test_events_reach_subscribers() -> None:
    m = SessionManager.in_memory("/p")
    seen: list[SessionEvent] = []
    unsubscribe = m.subscribe(seen.append)
    u = m.append_message(user("q"))
    m.branch(u)
    m.reset_leaf()
    unsubscribe()
    m.append_message(user("after"))
    assert seen == [EntryAppended(m.get_entry(u) or {}, u), LeafMoved(u, u), LeafMoved(None, u)]


def test_open_missing_file_starts_session_at_that_path(tmp_path: Path) -> None:
    target = tmp_path / "new.jsonl"
    m = SessionManager.open(target)
    assert m.session_file == str(target) and not target.exists()
    m.append_message(user("q"))
    assert lines(target)[0]["type"] == "session"


def test_open_accepts_str_and_path(tmp_path: Path) -> None:
    m = SessionManager.create("/p", tmp_path)
    m.append_message(user("q"))
    assert SessionManager.open(str(m.session_file)).leaf_id == SessionManager.open(Path(m.session_file or "")).leaf_id


def test_has_entries_says_whether_any_entry_exists_whatever_the_leaf() -> None:
    manager = SessionManager.in_memory("/p")
    assert not manager.has_entries()
    manager.append_message({"role": "user", "content": "hi", "timestamp": 1})
    assert manager.has_entries()
    manager.reset_leaf()  # no leaf, but the entry is still there
    assert manager.leaf_id is None and manager.has_entries()
