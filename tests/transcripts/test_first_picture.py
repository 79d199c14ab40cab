"""A big transcript opened from its first picture's part (issue 27 point 5): the whole file is read and
its tree built, only the nodes the first picture reads are converted before the window shows, the rest
later; in the end exactly the session an ordinary open gives, on every fixture and a generated one."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from desktop_app.session import SessionManager
from desktop_app.transcripts import first_picture, open_session_or_transcript, open_transcript

SOURCES = Path(__file__).resolve().parent.parent / "fixtures" / "claude_code"


def _generated(path: Path, turns: int = 120, compact_every: int = 30) -> Path:
    """A transcript with what the first picture's cut must get right: assistant turns over two lines
    (one message id), tool results named by a call that is not their parent (a progress line
    between), results with text after them (two entries for one line), meta lines, rewinds (one right
    under a compaction, written before the line the conversation went on from), subagent lines
    mixed in, compact boundaries with their summaries, lines without a timestamp, a title, and a
    last-prompt followed by a rewind far up the tree (the newest timestamp, on a line not shown)."""
    lines: list[dict[str, Any]] = []
    base = {"sessionId": "s-1", "cwd": "/w", "version": "2.1.12", "isSidechain": False}

    def add(kind: str, parent: str | None, **body: Any) -> str:
        uid = f"u{len(lines):05d}"
        line = {"parentUuid": parent, **base, "type": kind, **body, "uuid": uid,
                "timestamp": f"2026-11-03T{len(lines) // 3600:02d}:{len(lines) // 60 % 60:02d}:{len(lines) % 60:02d}.000Z"}
        if len(lines) % 7 == 3:
            del line["timestamp"]  # converted with the last valid one before it
        lines.append(line)
        return uid

    parent: str | None = None
    for turn in range(turns):
        prompt = add("user", parent, message={"role": "user", "content": f"question {turn}"})
        first = add("assistant", prompt, message={"id": f"m{turn}", "role": "assistant", "model": "c",
                                                  "content": [{"type": "text", "text": f"answer {turn}"}]})
        call = add("assistant", first, message={"id": f"m{turn}", "role": "assistant", "model": "c", "stop_reason": "tool_use",
                                                "content": [{"type": "tool_use", "id": f"t{turn}", "name": f"Tool{turn}", "input": {}}]})
        if turn % 4 == 1:
            call = add("progress", call, data={"type": "hook_progress"})
        result = add("user", call, message={"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"t{turn}", "content": "ok"}, {"type": "text", "text": "and more"}]})
        reply = add("assistant", result, message={"id": f"r{turn}", "role": "assistant", "model": "c",
                                                  "content": [{"type": "text", "text": f"done {turn}"}]})
        parent = add("system", reply, subtype="turn_duration", isMeta=True)
        if turn % 7 == 3:  # a rewind: another prompt under the same reply
            alt = add("user", reply, message={"role": "user", "content": f"instead {turn}"})
            add("assistant", alt, message={"id": f"a{turn}", "role": "assistant", "content": [{"type": "text", "text": "ok"}]})
        if turn % 20 == 5:
            side = add("user", None, message={"role": "user", "content": "subagent"}, isSidechain=True)
            add("assistant", side, message={"id": f"s{turn}", "role": "assistant", "content": "sub"}, isSidechain=True)
        if turn % compact_every == compact_every - 1:
            boundary = add("system", None, subtype="compact_boundary", logicalParentUuid=parent,
                           compactMetadata={"trigger": "auto", "preTokens": 1000 + turn})
            parent = add("user", boundary, isCompactSummary=True, message={"role": "user", "content": f"summary {turn}"})
            add("user", parent, message={"role": "user", "content": f"abandoned {turn}"})  # the compaction's first child
    lines.append({"type": "custom-title", "customTitle": "the generated one", "sessionId": "s-1"})
    lines.append({"type": "last-prompt", "leafUuid": parent, "sessionId": "s-1"})
    add("user", "u00001", message={"role": "user", "content": "a rewind far up, written last"})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture
def small_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file deferred, and the first picture's bounds small enough for these files to cut."""
    monkeypatch.setattr(SessionManager, "DEFER_MIN_BYTES", 0)
    monkeypatch.setattr(first_picture, "PATH_NODES", 12)
    monkeypatch.setattr(first_picture, "BRANCH_NODES", 3)
    monkeypatch.setattr(first_picture, "TOTAL_NODES", 30)


def _state(manager: SessionManager) -> dict[str, Any]:
    return {"header": manager.get_header(), "entries": manager.get_entries(), "leaf": manager.leaf_id,
            "name": manager.get_session_name(), "report": manager.report, "read_only": manager.read_only,
            "cwd": manager.cwd, "messages": manager.build_session_context().messages}


def test_a_deferred_open_ends_as_an_ordinary_one_on_every_transcript(tmp_path: Path, small_bounds: None) -> None:
    """Before the rest is installed: the same leaf, name, report and context as the whole open, and
    only entries the whole open has, each equal and in its order; after: the very same session."""
    sources = sorted(SOURCES.glob("*.jsonl")) + [_generated(tmp_path / "generated.jsonl")]
    cut = 0
    for source in sources:
        whole = open_transcript(source)
        lazy = open_session_or_transcript(source, defer=True)
        assert lazy.loading, source
        full_state, first_state = _state(whole), _state(lazy)
        by_id = {entry["id"]: entry for entry in full_state["entries"]}
        order = {entry_id: n for n, entry_id in enumerate(by_id)}
        part = first_state.pop("entries")
        assert [by_id.get(entry["id"]) for entry in part] == part, source
        assert [order[entry["id"]] for entry in part] == sorted(order[entry["id"]] for entry in part), source
        cut += len(part) < len(by_id)
        assert first_state == {k: v for k, v in full_state.items() if k != "entries"}, source
        assert lazy.finish_loading(announce=False)
        assert not lazy.loading
        assert _state(lazy) == full_state, source
    assert cut >= 3  # the bounds cut the bigger files: the part really is a part


def test_every_cut_converts_its_entries_as_the_whole_conversion(tmp_path: Path, small_bounds: None,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The path cut at every length from the leaf up (and the branches with it): each entry of the
    part is the whole conversion's (parent ids, timestamps, tool names, first kept entries, title)."""
    source = _generated(tmp_path / "generated.jsonl", turns=26, compact_every=8)
    whole = {entry["id"]: entry for entry in open_transcript(source).get_entries()}
    sizes = set()
    for path_nodes in range(1, 40):
        monkeypatch.setattr(first_picture, "PATH_NODES", path_nodes)
        part = open_transcript(source, defer=True).get_entries()
        sizes.add(len(part))
        assert [whole.get(entry["id"]) for entry in part] == part, path_nodes
    assert len(sizes) > 20 and max(sizes) < len(whole)


def test_the_first_part_holds_the_leaf_path_and_little_else(tmp_path: Path, small_bounds: None) -> None:
    """The leaf's path up past the newest compaction, its nearest branches; far less than the whole."""
    source = _generated(tmp_path / "generated.jsonl", turns=100)
    whole = open_transcript(source)
    lazy = open_transcript(source, defer=True)
    part = {entry["id"] for entry in lazy.get_entries()}
    path = whole.get_branch()  # root → leaf
    ids = [entry["id"] for entry in path]
    newest_compaction = max(n for n, entry in enumerate(path) if entry["type"] == "compaction")
    assert set(ids[newest_compaction:]) <= part  # the context the first picture shows
    assert set(ids[-first_picture.PATH_NODES:]) <= part
    assert len(part) < len(whole.get_entries()) // 4


def test_the_rest_is_converted_on_a_worker_thread(tmp_path: Path, small_bounds: None) -> None:
    source = _generated(tmp_path / "generated.jsonl", turns=40)
    lazy = open_transcript(source, defer=True)
    done = threading.Event()
    lazy.load_in_background(done.set)
    assert done.wait(10)
    assert lazy.finish_loading(announce=False)
    assert lazy.get_entries() == open_transcript(source).get_entries()


def test_small_transcripts_and_plain_opens_are_whole_at_once(tmp_path: Path) -> None:
    source = SOURCES / "compacted.jsonl"
    assert not open_transcript(source, defer=True).loading  # under DEFER_MIN_BYTES
    assert not open_transcript(_generated(tmp_path / "g.jsonl", turns=10)).loading  # defer not asked
