"""Failure paths found in review: each once lost or duplicated data, or showed a traceback."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from desktop_app.session import SessionFileError, SessionManager, SessionReadOnlyError
from desktop_app.session import store as store_module
from desktop_app.session.entries import serialize_line
from tests.cli_runs import arbor_in_process

from .helpers import assistant, user

ROOT = Path(__file__).resolve().parents[2]


def ids_in_file(path: str | Path) -> list[str]:
    return [json.loads(line).get("id") for line in Path(path).read_text().split("\n")[1:] if line]


def pi_line(entry_id: str, parent: str | None) -> str:
    return serialize_line({"type": "message", "id": entry_id, "parentId": parent,
                           "timestamp": "2026-01-01T00:00:00.000Z", "message": user(f"pi {entry_id}")})


def test_failed_write_then_external_append_keeps_order_and_writes_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    m = SessionManager.create("/p", tmp_path, fsync=False)
    a = m.append_message(user("A"))
    path = m.session_file or ""

    def disk_full(fd: int, data: bytes) -> int:
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patch:
        patch.setattr(store_module.os, "write", disk_full)
        with pytest.raises(SessionFileError):
            m.append_message(user("B"))
    b = m.get_entries()[-1]["id"]
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(pi_line("ext00001", a))
    c = m.append_message(user("C"))
    assert ids_in_file(path) == [a, "ext00001", b, c]  # each line once, nothing lost
    assert [e["id"] for e in m.get_entries()] == [a, "ext00001", b, c]  # memory in file order
    assert [e["id"] for e in SessionManager.open(path).get_entries()] == [a, "ext00001", b, c]


def test_external_append_on_another_branch_does_not_steal_the_leaf(tmp_path: Path) -> None:
    m = SessionManager.create("/p", tmp_path, fsync=False)
    root = m.append_message(user("root"))
    question = m.append_message(user("question"))
    with open(m.session_file or "", "a", encoding="utf-8") as fh:
        fh.write(pi_line("elsewhere", root))  # pi continues a sibling branch
    reply = m.append_message(assistant("answer"))
    assert m.get_entry(reply)["parentId"] == question
    assert m.get_entry("elsewhere") is not None  # but it is loaded


def test_file_replaced_by_garbage_is_not_appended_to(tmp_path: Path) -> None:
    m = SessionManager.create("/p", tmp_path, fsync=False)
    m.append_message(user("a"))
    path = Path(m.session_file or "")
    replacement = tmp_path / "other"
    replacement.write_text("not json at all\n")
    os.replace(replacement, path)
    with pytest.raises(SessionReadOnlyError):
        m.append_message(user("b"))
    assert path.read_text() == "not json at all\n"


def test_deleted_file_is_written_again_in_full(tmp_path: Path) -> None:
    m = SessionManager.create("/p", tmp_path, fsync=False)
    first = m.append_message(user("a"))
    path = Path(m.session_file or "")
    path.unlink()
    second = m.append_message(user("b"))
    reopened = SessionManager.open(path)
    assert [e["id"] for e in reopened.get_entries()] == [first, second]
    assert reopened.session_id == m.session_id


def test_failed_fsync_rolls_back_so_the_retry_writes_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    m = SessionManager.create("/p", tmp_path)
    a = m.append_message(user("a"))

    def broken_fsync(fd: int) -> None:
        raise OSError(5, "Input/output error")

    with monkeypatch.context() as patch:
        patch.setattr(store_module.os, "fsync", broken_fsync)
        with pytest.raises(SessionFileError):
            m.append_message(user("b"))
    b = m.get_entries()[-1]["id"]
    c = m.append_message(user("c"))
    assert ids_in_file(m.session_file or "") == [a, b, c]


ODD_LINES = [
    '{"type":"message","id":[1],"parentId":null,"timestamp":"2025-01-01T00:00:00.000Z","message":{"role":"user","content":"x","timestamp":1}}',
    '{"type":"message","id":"a","parentId":{"x":1},"timestamp":"2025-01-01T00:00:00.000Z","message":"str"}',
    '{"type":"label","id":"l","parentId":null,"timestamp":"2025-01-01T00:00:00.000Z","targetId":[1]}',
    '{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-01T00:00:00.000Z","message":{"role":"assistant","content":[],"usage":"x","stopReason":"stop"}}',
    '{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-01T00:00:00.000Z","message":{"role":"assistant","content":[],"usage":{"totalTokens":"x"},"stopReason":"stop"}}',
    '{"type":"branch_summary","id":"b","parentId":null,"timestamp":"2025-01-01T00:00:00.000Z","fromId":"root","summary":null}',
]


@pytest.mark.parametrize("line", ODD_LINES, ids=range(len(ODD_LINES)))
def test_odd_but_parseable_lines_never_crash(tmp_path: Path, line: str) -> None:
    from desktop_app.agent import AgentSession
    from desktop_app.llm.offline import OfflineProvider

    path = tmp_path / "odd.jsonl"
    path.write_text('{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}\n'
                    + line + "\n")
    manager = SessionManager.open(path)
    manager.get_tree()
    manager.build_session_context()
    usage = AgentSession(manager, OfflineProvider()).context_usage()
    assert usage.tokens is None or usage.tokens >= 0
    result = arbor_in_process("inspect", str(path))
    assert result.returncode == 0 and "Traceback" not in result.stderr
    assert json.loads(result.stdout)["open"]["entry_count"] == 1


def test_migration_that_cannot_be_written_opens_read_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "v1.jsonl"
    source.write_bytes((ROOT / "tests" / "fixtures" / "conformance" / "mig-v1-basic.jsonl").read_bytes())
    before = source.read_bytes()

    def refuse(self: object, text: str, keep_backup: bool = True) -> None:
        raise SessionFileError("Cannot rewrite: Read-only file system")

    monkeypatch.setattr(store_module.SessionStore, "rewrite", refuse)
    m = SessionManager.open(source)
    assert m.read_only and "read-only" in (m.report.error or "")
    assert m.get_entries() and all(isinstance(e.get("id"), str) for e in m.get_entries())  # shown migrated
    with pytest.raises(SessionReadOnlyError):
        m.append_message(user("x"))
    assert source.read_bytes() == before
