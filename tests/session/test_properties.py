"""Property tests: whatever sequence of operations a user makes, the file tells the same story.

Random sequences of appends (every entry type), branch, reset, labels, branch summaries and forks are
applied to a file-backed session; closing and reopening must give the same entries, tree, leaf rule
and the context of every entry. A second property cuts a written file at every byte of its last
three lines (a crash mid-write) and checks that only the torn line is lost and that the next append
survives.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop_app.session import SessionManager, build_session_context
from desktop_app.session.entries import serialize_line
from desktop_app.session.store import SessionStore
from desktop_app.session.tree import TreeNode

from .helpers import assistant, tool_result, user

TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)

OPS = st.one_of(
    st.tuples(st.just("user"), TEXT),
    st.tuples(st.just("assistant"), TEXT),
    st.tuples(st.just("tool_result"), TEXT),
    st.tuples(st.just("bash"), TEXT),
    st.tuples(st.just("thinking"), st.sampled_from(["off", "minimal", "low", "medium", "high", "xhigh"])),
    st.tuples(st.just("model"), st.sampled_from(["claude-a", "claude-b"])),
    st.tuples(st.just("compaction"), st.integers(0, 10_000)),
    st.tuples(st.just("custom"), TEXT),
    st.tuples(st.just("custom_message"), st.booleans()),
    st.tuples(st.just("session_info"), TEXT),
    st.tuples(st.just("label"), st.integers(0, 10_000), TEXT),
    st.tuples(st.just("branch"), st.integers(0, 10_000)),
    st.tuples(st.just("reset"), st.just(0)),
    st.tuples(st.just("branch_summary"), st.integers(-1, 10_000), TEXT),
    st.tuples(st.just("fork"), st.integers(0, 10_000)),
)


def _pick(manager: SessionManager, n: int) -> str | None:
    entries = manager.get_entries()
    return entries[n % len(entries)]["id"] if entries else None


def apply(manager: SessionManager, op: tuple[Any, ...]) -> None:
    kind = op[0]
    if kind == "user":
        manager.append_message(user(op[1]))
    elif kind == "assistant":
        manager.append_message(assistant(op[1]))
    elif kind == "tool_result":
        manager.append_message(tool_result("call_1", op[1]))
    elif kind == "bash":
        manager.append_message(
            {"role": "bashExecution", "command": op[1], "output": "ok", "exitCode": 1, "cancelled": False,
             "truncated": False, "timestamp": 5}
        )
    elif kind == "thinking":
        manager.append_thinking_level_change(op[1])
    elif kind == "model":
        manager.append_model_change("anthropic", op[1])
    elif kind == "compaction":
        manager.append_compaction("summary", _pick(manager, op[1]), 1234, {"readFiles": [], "modifiedFiles": []}, False)
    elif kind == "custom":
        manager.append_custom_entry("ext", {"text": op[1]})
    elif kind == "custom_message":
        manager.append_custom_message_entry("ext", "note", op[1], {"k": 1})
    elif kind == "session_info":
        manager.append_session_info(op[1])
    elif kind == "label":
        target = _pick(manager, op[1])
        if target is not None:
            manager.append_label_change(target, op[2])
    elif kind == "branch":
        target = _pick(manager, op[1])
        if target is not None:
            manager.branch(target)
    elif kind == "reset":
        manager.reset_leaf()
    elif kind == "branch_summary":
        target = None if op[1] < 0 else _pick(manager, op[1])
        manager.branch_with_summary(target, op[2] or "summary")
    elif kind == "fork":
        target = _pick(manager, op[1])
        if target is not None:
            manager.create_branched_session(target)


def flatten(nodes: list[TreeNode]) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    stack = [(None, n) for n in reversed(nodes)]
    while stack:
        parent, node = stack.pop()
        out.append((parent, node.entry["id"], node.label, node.label_timestamp))
        stack.extend((node.entry["id"], c) for c in reversed(node.children))
    return out


def snapshot(manager: SessionManager) -> dict[str, Any]:
    entries = manager.get_entries()
    ids = [e["id"] for e in entries]
    return {
        "header": manager.get_header(),
        "entries": json.loads(json.dumps(entries)),
        "tree": flatten(manager.get_tree()),
        "name": manager.get_session_name(),
        "labels": {i: manager.get_label(i) for i in ids},
        "contexts": {
            i: json.loads(json.dumps(build_session_context(entries, i, manager.index).to_json())) for i in ids
        },
        "branches": {i: [e["id"] for e in manager.get_branch(i)] for i in ids},
    }


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=st.lists(OPS, min_size=1, max_size=40))
def test_reopen_gives_the_same_session(tmp_path_factory: Any, ops: list[tuple[Any, ...]]) -> None:
    directory = tmp_path_factory.mktemp("prop")
    manager = SessionManager.create("/project", directory, fsync=False)
    manager.append_message(user("start"))
    for op in ops:
        apply(manager, op)
    before = snapshot(manager)
    path = manager.session_file
    manager.close()
    reopened = SessionManager.open(path or "")
    assert snapshot(reopened) == before
    assert flatten(reopened.get_tree()) == flatten(reopened.index.build_tree())
    assert flatten(manager.get_tree()) == flatten(manager.index.build_tree())
    entries = reopened.get_entries()
    # pi's leaf rule: the last line, none in a file without entries (a fork at a label entry that is
    # a root keeps nothing: the label is dropped and its target is not on the path)
    assert reopened.leaf_id == (entries[-1]["id"] if entries else None)
    text = Path(path or "").read_text(encoding="utf-8")
    assert text.endswith("\n") and text.count('"type":"session"') == 1


def _written_session(directory: Path) -> Path:
    manager = SessionManager.create("/project", directory, fsync=False)
    manager.append_message(user("héllo 😀 " * 5))
    manager.append_message(assistant("answer"))
    manager.append_label_change(manager.get_entries()[0]["id"], "start")
    manager.append_message(user("third line from the end"))
    manager.append_message(assistant("second from the end ✓"))
    manager.append_message(user("last"))
    return Path(manager.session_file or "")


def _write_over(path: Path, data: bytes) -> None:
    """``path`` now holds ``data``: written over in place, never emptied first. (Emptying a file that
    holds data and writing it again makes ext4 flush it to disk first, ~1 ms each; here 800 times.)"""
    with path.open("r+b") as file:
        file.write(data)
        file.truncate()


def test_truncation_at_every_byte_of_last_three_lines_loses_only_the_torn_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No other writer here: a crash tore the line, so an append need not wait for it to be finished
    # (the wait itself is tested with a real two-write writer in test_other_writers).
    monkeypatch.setattr(SessionStore, "line_end_patience", 0.0)
    source = _written_session(tmp_path / "src")
    data = source.read_bytes()
    line_starts = [0] + [i + 1 for i, b in enumerate(data) if b == ord("\n")][:-1]
    start_of_last_three = line_starts[-3]
    complete = [json.loads(line) for line in data.decode("utf-8").splitlines()[1:]]
    written_lines = {serialize_line(e).encode() for e in complete}
    work = tmp_path / "cut.jsonl"
    work.write_bytes(data)
    for cut in range(start_of_last_three, len(data)):
        _write_over(work, data[:cut])
        prefix = data[:cut]
        # entries whose line is complete: ends with "\n" before the cut, or is the exact whole line
        n_complete = prefix.count(b"\n") - 1
        tail = prefix[prefix.rfind(b"\n") + 1 :]
        whole_tail = tail and tail + b"\n" in written_lines
        expected = complete[: n_complete + (1 if whole_tail else 0)]
        manager = SessionManager.open(work, fsync=False)
        assert manager.get_entries() == expected, cut
        # An unfinished last line is not malformed at open (another writer may finish it), only unread
        # and reported as torn; a tail that is a whole entry but for its "\n" is kept, not torn.
        unfinished = bool(tail) and not whole_tail
        assert manager.report.torn_last_line == unfinished and manager.report.malformed_lines == [], cut
        new_id = manager.append_message(user("after crash"))
        again = SessionManager.open(work, fsync=False)
        assert [e["id"] for e in again.get_entries()] == [e["id"] for e in expected] + [new_id], cut
    shutil.rmtree(tmp_path / "src")


def test_fork_at_a_root_label_entry_gives_an_empty_session_that_reopens(tmp_path: Path) -> None:
    """The example Hypothesis found: a label written after a reset is a root; forking at it keeps
    nothing (labels are dropped, its target is off the path), and the empty file reopens empty."""
    manager = SessionManager.create("/project", tmp_path, fsync=False)
    manager.append_message(user("start"))
    for op in [("user", "a"), ("reset", 0), ("label", 0, "x"), ("user", "b"), ("user", "c"), ("fork", 2)]:
        apply(manager, op)
    assert manager.get_entries() == [] and manager.leaf_id is None
    reopened = SessionManager.open(manager.session_file or "")
    assert reopened.get_entries() == [] and reopened.leaf_id is None
    assert reopened.get_header() == manager.get_header()
