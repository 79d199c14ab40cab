"""Claude Code transcripts (issue 27 points 1, 3, 5): the reader, the tree, the pi conversion, import.

The hand-made transcripts in ``tests/fixtures/claude_code/`` (``build.py`` writes them) hold every odd
case of point 5. Their imports are in ``tests/fixtures/odd/claude_code/`` with pi 0.73.1's and pi
1.6.0's answers, which ``tests/conformance/test_odd_files.py`` compares section by section with
Arbor's; here: the import still writes exactly those bytes, pi reads every main-chain message, and
pi's context at the leaf starts with the newest summary where the transcript was compacted.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from desktop_app.cli import main
from desktop_app.session import SessionManager
from desktop_app.session.manager import SessionReadOnlyError
from desktop_app.transcripts import (
    TranscriptError,
    import_transcript,
    is_claude_code_transcript,
    load_transcript,
    open_session_or_transcript,
    open_transcript,
)
from desktop_app.transcripts.lines import parse_lines
from desktop_app.transcripts.model import NodeKind, Transcript, build_transcript

from ..conformance.resolve import unrle

ROOT = Path(__file__).resolve().parent.parent / "fixtures"
SOURCES = ROOT / "claude_code"
IMPORTED = ROOT / "odd" / "claude_code"
CASES = ("basic", "compacted", "sidechains", "torn", "dkimuson-1af7fc5e", "dkimuson-5c0375b4")
PIS = ("pi073", "pi16")


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _texts(message: dict[str, Any]) -> list[str]:
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    found = []
    for block in content if isinstance(content, list) else []:
        for key in ("text", "thinking"):
            if isinstance(block.get(key), str) and block[key]:
                found.append(block[key])
    if isinstance(message.get("summary"), str):
        found.append(message["summary"])
    return found


def _node_texts(transcript: Transcript) -> list[str]:
    """Every text and thinking block of the main chain's user and assistant lines, as written."""
    texts: list[str] = []
    for node in transcript.main_chain():
        if node.kind not in (NodeKind.USER, NodeKind.ASSISTANT):
            continue
        for part in node.parts or [node.obj]:
            content = part["message"]["content"]
            if isinstance(content, str):
                texts.append(content)
                continue
            for block in content:
                if block.get("type") == "tool_result":
                    inner = block["content"]
                    texts.extend([inner] if isinstance(inner, str) else [b["text"] for b in inner if "text" in b])
                texts.extend(block[k] for k in ("text", "thinking") if isinstance(block.get(k), str) and block[k])
    return texts


@pytest.fixture(scope="module")
def loaded() -> dict[str, Any]:
    return {case: load_transcript(SOURCES / f"{case}.jsonl") for case in CASES}


def test_import_writes_the_files_pi_answered_for_and_never_touches_the_source(tmp_path: Path) -> None:
    for case in CASES:
        source = SOURCES / f"{case}.jsonl"
        before = _sha(source)
        result = import_transcript(source, tmp_path / f"{case}.jsonl")
        assert result.out.read_bytes() == (IMPORTED / f"{case}.jsonl").read_bytes(), case
        assert _sha(source) == before
        assert (result.out.stat().st_mode & 0o777) == 0o600
    with pytest.raises(TranscriptError, match="already exists"):  # never replaces a file
        import_transcript(SOURCES / "basic.jsonl", tmp_path / "basic.jsonl")


def test_pi_reads_every_main_chain_message_and_starts_the_leaf_context_with_the_summary(loaded: dict[str, Any]) -> None:
    for case in CASES:
        transcript, _ = loaded[case]
        wanted = _node_texts(transcript)
        assert wanted, case
        compactions = [n for n in transcript.main_chain() if n.kind is NodeKind.COMPACTION]
        for pi in PIS:
            answers = json.loads((IMPORTED / f"{case}.{pi}.expected.json").read_text(encoding="utf-8"))
            assert "error" not in answers["open"], (case, pi)
            has = "\n".join(t for e in answers["entries"] if e["type"] == "message" for t in _texts(e["message"]))
            missing = [t[:40] for t in wanted if t not in has]
            assert not missing, (case, pi, missing)
            table = answers["message_table"]
            context = [table[i] for i in unrle(answers["context_special"]["open_leaf"]["messages"])]
            context = [answers["entries"][m["$entry"]]["message"] if "$entry" in m else m for m in context]
            if compactions:
                newest = compactions[-1].summary
                assert newest is not None
                assert context[0]["role"] == "compactionSummary", (case, pi)
                assert context[0]["summary"] == newest["message"]["content"]
                assert all(m["role"] != "compactionSummary" for m in context[1:])
            else:
                in_context = "\n".join(t for m in context for t in _texts(m))
                assert all(t in in_context for t in wanted if "Also round" not in t), (case, pi)


def test_one_turn_over_many_lines_is_one_message_and_rewinds_are_branches(loaded: dict[str, Any]) -> None:
    transcript, conversion = loaded["basic"]
    by_id = {e["id"]: e for e in conversion.entries}
    turn = by_id["7f3c2a10-0003-4a1b-9c2d-000000000003"]["message"]
    assert [b["type"] for b in turn["content"]] == ["thinking", "text", "toolCall"]
    assert turn["content"][0]["thinkingSignature"].startswith("EqQB")
    assert turn["stopReason"] == "toolUse" and turn["model"] == "claude-sonnet-4-5-20250929"
    assert turn["usage"]["cacheRead"] == 15000 and turn["usage"]["output"] == 180
    assert "7f3c2a10-0004-4a1b-9c2d-000000000004" not in by_id  # the turn's later lines are merged
    result = by_id["7f3c2a10-0006-4a1b-9c2d-000000000006"]  # its tool result hangs under the merged turn
    assert result["parentId"] == "7f3c2a10-0003-4a1b-9c2d-000000000003"
    assert result["message"]["toolName"] == "Grep" and result["message"]["toolCallId"] == "toolu_01Gx7bFormat"
    reply, note = "7f3c2a10-0011-4a1b-9c2d-000000000011", "7f3c2a10-0012-4a1b-9c2d-000000000012"
    assert [e["id"] for e in conversion.entries if e.get("parentId") == reply] == [note]  # no false fork
    assert by_id[note]["customType"] == "claude-code.meta"  # the turn's duration, kept, never sent
    prompts = [e for e in conversion.entries if e.get("parentId") == note]
    assert [p["message"]["role"] for p in prompts] == ["user", "user"]  # the edited follow-up is a branch
    caveat = by_id["7f3c2a10-0001-4a1b-9c2d-000000000001"]  # isMeta: the model read it, the person did not see it
    assert (caveat["type"], caveat["customType"], caveat["display"]) == ("custom_message", "claude-code.hidden-prompt", False)
    assert caveat["content"].startswith("<local-command-caveat>")
    assert conversion.entries[-1]["type"] == "session_info"
    assert conversion.entries[-1]["name"] == "Forecast temperatures in Celsius"
    assert conversion.entries[-2]["id"] == transcript.leaf == "7f3c2a10-0015-4a1b-9c2d-000000000015"


def test_compact_boundaries_never_make_a_cycle_and_keep_from_the_first_message_after(loaded: dict[str, Any]) -> None:
    transcript, conversion = loaded["compacted"]
    by_id = {e["id"]: e for e in conversion.entries}
    for entry in conversion.entries:  # every path reaches a root
        seen: set[str] = set()
        current: str | None = entry["id"]
        while current is not None:
            assert current not in seen
            seen.add(current)
            current = by_id[current]["parentId"]
    manual, auto = (e for e in conversion.entries if e["type"] == "compaction")
    assert manual["parentId"] == "0d4e9b21-0009-4a1b-9c2d-000000000009"  # logicalParentUuid, which exists
    assert auto["parentId"] == "0d4e9b21-0016-4a1b-9c2d-000000000016"  # the line before, not the tail
    assert auto["firstKeptEntryId"] == "0d4e9b21-0019-4a1b-9c2d-000000000019"
    assert manual["tokensBefore"] == 48211 and auto["details"]["trigger"] == "auto" and auto["fromHook"] is True
    assert any("logicalParentUuid names a later entry" in n for n in transcript.notes)
    assert any("last-prompt names ffffffff" in n for n in transcript.notes)


def test_sidechains_unknown_lines_images_and_errors(loaded: dict[str, Any]) -> None:
    transcript, conversion = loaded["sidechains"]
    side = [e for e in conversion.entries if e.get("customType") == "claude-code.sidechain"]
    assert len(side) == 4
    task = "5c0375b4-0002-4a1b-9c2d-000000000002"
    roots = [e for e in side if e["parentId"] == task]  # under the Task call that started it
    assert len(roots) == 1 and roots[0]["data"]["message"]["content"].startswith("Find every place")
    assert transcript.unknown == [(11, "x-future-line")]
    prompt = conversion.entries[0]["message"]
    assert prompt["content"][1]["type"] == "image" and prompt["content"][1]["mimeType"] == "image/png"
    error = next(e["message"] for e in conversion.entries if e["type"] == "message"
                 and e["message"].get("stopReason") == "error")
    assert error["errorMessage"] == "API Error: 529 Overloaded"
    manager = open_transcript(SOURCES / "sidechains.jsonl")
    assert any("x-future-line" in n for n in manager.report.notes)


def test_torn_and_unreadable_lines_are_reported_and_the_rest_loads(loaded: dict[str, Any]) -> None:
    transcript, conversion = loaded["torn"]
    assert transcript.lines.torn_last_line and transcript.lines.malformed_lines == [4]
    assert [e["message"]["role"] for e in conversion.entries] == ["user", "assistant", "user", "assistant"]
    manager = open_transcript(SOURCES / "torn.jsonl")
    assert manager.report.torn_last_line and manager.report.malformed_lines == [4]


def test_a_parent_cycle_is_broken_and_a_summary_line_alone_is_a_compaction() -> None:
    lines = [
        {"type": "user", "uuid": "a", "parentUuid": "b", "sessionId": "s", "message": {"role": "user", "content": "one"}},
        {"type": "user", "uuid": "b", "parentUuid": "a", "sessionId": "s", "message": {"role": "user", "content": "two"}},
        {"type": "user", "uuid": "c", "parentUuid": "b", "isCompactSummary": True, "message": {"content": "sum"}},
    ]
    data = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
    transcript = build_transcript(parse_lines(data))
    assert any("cycle" in note for note in transcript.notes)
    assert transcript.nodes["c"].kind is NodeKind.COMPACTION and transcript.leaf == "c"
    assert [n.uuid for n in transcript.main_chain()][-1] == "c"


def test_opened_read_only_with_the_context_pi_would_build() -> None:
    manager = open_session_or_transcript(SOURCES / "compacted.jsonl")
    assert manager.read_only and manager.report.foreign == "Claude Code"
    assert manager.session_file == str(SOURCES / "compacted.jsonl")
    context = manager.build_session_context().messages
    assert context[0]["role"] == "compactionSummary" and "altimeter" in context[0]["summary"]
    with pytest.raises(SessionReadOnlyError):
        manager.append_message({"role": "user", "content": "hi", "timestamp": 0})
    pi_file = ROOT / "odd" / "claude_code" / "basic.jsonl"
    assert not is_claude_code_transcript(pi_file) and is_claude_code_transcript(SOURCES / "basic.jsonl")
    assert not open_session_or_transcript(pi_file).read_only  # a pi session opens as before
    assert isinstance(open_session_or_transcript(pi_file), SessionManager)


def test_arbor_import_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out.jsonl"
    assert main(["import", str(SOURCES / "compacted.jsonl"), "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "2 compaction(s)" in said and "note: line 18" in said
    assert main(["import", str(SOURCES / "compacted.jsonl"), "--out", str(out)]) == 1
    assert "already exists" in capsys.readouterr().err
    assert main(["import", str(IMPORTED / "basic.jsonl"), "--out", str(tmp_path / "x.jsonl")]) == 2
    assert "not a Claude Code transcript" in capsys.readouterr().err
    assert main(["import", str(tmp_path / "missing.jsonl"), "--out", str(tmp_path / "y.jsonl")]) == 2


def test_an_import_that_fails_mid_write_leaves_no_partial_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A full disk mid-write: no half a session is left behind (it would open as a shorter session,
    and the next import would refuse the name)."""
    import os as os_module

    def full_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os_module, "fsync", full_disk)
    out = tmp_path / "out.jsonl"
    with pytest.raises(TranscriptError, match="No space left"):
        import_transcript(SOURCES / "basic.jsonl", out)
    assert not out.exists()
    monkeypatch.undo()
    assert import_transcript(SOURCES / "basic.jsonl", out).out == out  # the name is free again
