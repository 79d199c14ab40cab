"""Issue 25's "Done when", end to end through the command line (in-process: ``cli.main``, no subprocess).

Three ``arbor ask --yes`` turns against the scripted fake server write ``notes.md`` "v1", edit it to
"v2", then run ``printf v3 > notes.md; echo x > extra.txt``. ``arbor restore S <turn one's reply>``
names both files and changes nothing; with ``--yes`` the folder has "v1" and no ``extra.txt``;
``arbor restore S <leaf> --yes`` brings "v3" and ``extra.txt`` back. The folder never holds anything
but the user's files, and the session holds one checkpoint entry per folder change.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from desktop_app.cli import main
from desktop_app.workspace.checkpoints import CHECKPOINT_TYPE, Phase, checkpoint_of
from tests.fakes import FakeAnthropicServer
from tests.fakes import anthropic_server as fa

KEY = "sk-ant-api03-CKPTTEST-0123456789abcdefSECRET"


def _entries(session: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in session.read_text().splitlines() if line][1:]


def _reply_ids(entries: list[dict[str, Any]]) -> list[str]:
    """The id of each turn's final assistant reply (the one without tool calls)."""
    return [e["id"] for e in entries if e["type"] == "message" and e["message"]["role"] == "assistant"
            and e["message"].get("stopReason") == "stop"]


def _restore(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str]:
    code = main(["restore", *args])
    captured = capsys.readouterr()
    return code, captured.out.splitlines(), captured.err


def test_three_turns_then_restore_back_and_forth(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = tmp_path / "work"
    folder.mkdir()
    session = tmp_path / "s.jsonl"
    (Path(os.environ["ARBOR_HOME"]) / "settings.json").write_text('{"retry": {"baseDelayMs": 1}}')
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.chdir(folder)
    fake_anthropic.enqueue(
        fa.tool_use("write", {"path": "notes.md", "content": "v1"}, tool_id="toolu_w"), fa.text("Wrote v1."),
        fa.tool_use("edit", {"path": "notes.md", "edits": [{"oldText": "v1", "newText": "v2"}]}, tool_id="toolu_e"),
        fa.text("Now v2."),
        fa.tool_use("bash", {"command": "printf v3 > notes.md; echo x > extra.txt"}, tool_id="toolu_b"),
        fa.text("Ran it."),
    )
    ask = ["ask", "--session", str(session), "--base-url", fake_anthropic.base_url, "--yes"]
    for text in ("Write v1", "Make it v2", "Run the command"):
        assert main([*ask, text]) == 0
    capsys.readouterr()
    assert (folder / "notes.md").read_text() == "v3" and (folder / "extra.txt").read_text() == "x\n"

    entries = _entries(session)
    checkpoints = [c for c in (checkpoint_of(e) for e in entries) if c is not None]
    assert [(c.phase, c.baseline, [(f.kind.value, f.path, f.added, f.removed) for f in c.files]) for c in checkpoints] == [
        (Phase.BEFORE, True, []),  # the empty folder, before the first write
        (Phase.AFTER, False, [("A", "notes.md", 1, 0)]),
        (Phase.AFTER, False, [("M", "notes.md", 1, 1)]),
        (Phase.AFTER, False, [("A", "extra.txt", 1, 0), ("M", "notes.md", 1, 1)]),
    ]
    assert [c.tool_call_ids for c in checkpoints] == [("toolu_w",), ("toolu_w",), ("toolu_e",), ("toolu_b",)]
    first_reply, _, last_reply = _reply_ids(entries)

    before = session.read_bytes()
    code, out, _ = _restore(capsys, str(session), first_reply)
    assert (code, out) == (0, ["D extra.txt", "M notes.md"])
    assert (folder / "notes.md").read_text() == "v3" and (folder / "extra.txt").exists()
    assert session.read_bytes() == before  # a dry run writes nothing

    code, out, _ = _restore(capsys, str(session), first_reply, "--yes")
    assert (code, out) == (0, ["D extra.txt", "M notes.md"])
    assert (folder / "notes.md").read_text() == "v1" and not (folder / "extra.txt").exists()
    assert session.read_bytes() == before  # the folder was as the leaf said: nothing to record

    code, out, _ = _restore(capsys, str(session), last_reply, "--yes")
    assert (code, out) == (0, ["A extra.txt", "M notes.md"])
    assert (folder / "notes.md").read_text() == "v3" and (folder / "extra.txt").read_text() == "x\n"
    assert sorted(os.listdir(folder)) == ["extra.txt", "notes.md"]  # only the user's files, no .git

    # A hand edit is named, and kept: restoring records it under the leaf first.
    (folder / "notes.md").write_text("by hand")
    code, out, err = _restore(capsys, str(session), first_reply, "--yes")
    assert out == ["D extra.txt", "M notes.md"]
    assert "notes.md was changed by hand since the last checkpoint and was overwritten; its content is kept" in err
    kept = [c for c in (checkpoint_of(e) for e in _entries(session)) if c is not None and c.phase is Phase.RESTORE]
    assert [(f.kind.value, f.path) for c in kept for f in c.files] == [("M", "notes.md")]
    assert _entries(session)[-1]["parentId"] == last_reply and _entries(session)[-1]["customType"] == CHECKPOINT_TYPE
    code, out, _ = _restore(capsys, str(session), _entries(session)[-1]["id"], "--yes")
    assert (folder / "notes.md").read_text() == "by hand"


def test_restore_errors_are_plain(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "work"
    folder.mkdir()
    session = tmp_path / "s.jsonl"
    header = {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-12-04T00:00:00.000Z", "cwd": str(folder)}
    user = {"type": "message", "id": "u1", "parentId": None, "timestamp": "2026-12-04T00:00:01.000Z",
            "message": {"role": "user", "content": "hi", "timestamp": 1}}
    ckpt = {"type": "custom", "customType": CHECKPOINT_TYPE, "data": {"snapshot": "f" * 40, "phase": "after"},
            "id": "c1", "parentId": "u1", "timestamp": "2026-12-04T00:00:02.000Z"}
    session.write_text("\n".join(json.dumps(o) for o in (header, user, ckpt)) + "\n")
    cases = [
        ((str(session), "nope"), "no entry nope in this session"),
        ((str(session), "u1"), "no checkpoint on the path to u1"),
        ((str(session), "c1"), "is not in the store of"),
        ((str(tmp_path / "missing.jsonl"), "u1"), "no such session file"),
    ]
    for args, words in cases:
        code, out, err = _restore(capsys, *args)
        assert code == 1 and out == [] and words in err and "Traceback" not in err, (args, err)
    folder.rmdir()
    code, out, err = _restore(capsys, str(session), "c1")
    assert code == 1 and f"the working folder {folder} is missing" in err
