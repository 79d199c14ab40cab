"""Arbor's deliberate improvements over pi's file handling (DESIGN.md §2), one test each."""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import stat
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop_app.session import (
    ExternalAppend,
    Reloaded,
    SessionEvent,
    SessionFailed,
    SessionFileError,
    SessionManager,
    SessionReadOnlyError,
)
from desktop_app.session import store as store_module
from desktop_app.session.entries import serialize_line

from .helpers import assistant, user

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "conformance"


def raw_lines(path: str | Path) -> list[str]:
    return Path(path).read_text(encoding="utf-8").splitlines()


def test_reopened_file_without_assistant_never_gets_lines_twice(tmp_path: Path) -> None:
    # pi's duplicate-header bug (pi-spec §3.2): header-only file, reopen, user + assistant.
    m = SessionManager.create("/p", tmp_path)
    m.append_message(user("first"))
    path = m.session_file or ""
    reopened = SessionManager.open(path)
    reopened.append_message(user("second"))
    reopened.append_message(assistant("answer"))
    written = [json.loads(line) for line in raw_lines(path)]
    assert [e["type"] for e in written] == ["session", "message", "message", "message"]
    assert len({e["id"] for e in written}) == 4


def test_torn_last_line_is_terminated_and_reported_when_we_append_and_nothing_complete_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module.SessionStore, "line_end_patience", 0.05)  # nobody is going to finish it
    m = SessionManager.create("/p", tmp_path)
    kept = [m.append_message(user(f"m{i}")) for i in range(3)]
    path = Path(m.session_file or "")
    path.write_bytes(path.read_bytes() + b'{"type":"message","id":"torn","par')  # crash mid-write
    reopened = SessionManager.open(path)
    # At open an unterminated line may still be being written (issue 13 item 8): torn, not malformed yet.
    assert reopened.report.torn_last_line and reopened.report.malformed_lines == []
    assert [e["id"] for e in reopened.get_entries()] == kept
    failures: list[str] = []
    reopened.subscribe(lambda e: failures.append(e.message) if isinstance(e, SessionFailed) else None)
    new_id = reopened.append_message(user("after the crash"))  # now it is torn: terminated, reported
    assert failures == ["Skipped 1 unreadable appended line(s)"]
    assert [e["id"] for e in reopened.get_entries()] == [*kept, new_id]
    again = SessionManager.open(path)
    assert [e["id"] for e in again.get_entries()] == [*kept, new_id]
    assert again.report.malformed_lines == [5] and not again.report.torn_last_line
    assert raw_lines(path)[4] == '{"type":"message","id":"torn","par'  # kept, on its own line


def test_a_file_holding_only_half_a_line_is_still_reported(tmp_path: Path) -> None:
    path = tmp_path / "half.jsonl"
    path.write_bytes(b'{"type":"session","version":3,"id":"s1","timest')
    m = SessionManager.open(path)
    assert m.report.torn_last_line and m.report.malformed_lines == [1] and m.read_only


def test_migration_keeps_backup_and_replaces_atomically(tmp_path: Path) -> None:
    source = tmp_path / "v1.jsonl"
    shutil.copyfile(FIXTURES / "mig-v1-basic.jsonl", source)
    original = source.read_bytes()
    m = SessionManager.open(source)
    assert m.report.migrated and m.report.backup_path is not None
    assert m.report.backup_path.read_bytes() == original
    header = json.loads(raw_lines(source)[0])
    assert header["version"] == 3
    assert not list(tmp_path.glob(".*.tmp-*"))  # no temp file left behind
    assert SessionManager.open(source).report.migrated is False  # idempotent


def test_file_without_valid_header_is_read_only_and_untouched(tmp_path: Path) -> None:
    path = tmp_path / "no-header.jsonl"
    shutil.copyfile(FIXTURES / "edge-no-header.jsonl", path)
    before = path.read_bytes()
    m = SessionManager.open(path)
    assert m.read_only and m.report.error and "read-only" in m.report.error
    with pytest.raises(SessionReadOnlyError):
        m.append_message(user("x"))
    m.close()
    assert path.read_bytes() == before


def test_each_append_is_fsynced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (calls.append(fd), real(fd))[1])
    m = SessionManager.create("/p", tmp_path)
    m.append_message(user("1"))
    m.append_message(user("2"))
    assert len(calls) == 2
    relaxed = SessionManager.create("/p", tmp_path, fsync=False)
    relaxed.append_message(user("3"))
    assert len(calls) == 2


def test_new_files_are_private(tmp_path: Path) -> None:
    m = SessionManager.create("/p", tmp_path)
    m.append_message(user("1"))
    assert stat.S_IMODE(os.stat(m.session_file or "").st_mode) == 0o600


def _append_many(path: str, worker: int, count: int) -> None:
    m = SessionManager.open(path, fsync=False)
    for i in range(count):
        m.append_message(user(f"worker {worker} message {i} " + "x" * 3000))


def test_two_processes_appending_under_the_lock_lose_nothing(tmp_path: Path) -> None:
    m = SessionManager.create("/p", tmp_path)
    m.append_message(user("seed"))
    path = m.session_file or ""
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_append_many, args=(path, w, 150)) for w in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    rows = raw_lines(path)
    parsed = [json.loads(line) for line in rows]  # every line intact
    assert len(parsed) == 2 + 2 * 150
    texts = {e["message"]["content"][0]["text"].split(" x")[0] for e in parsed[1:] if e["type"] == "message"}
    assert {f"worker {w} message {i}" for w in range(2) for i in range(150)} <= texts
    reopened = SessionManager.open(path)
    ids = [e["id"] for e in reopened.get_entries()]
    assert len(ids) == len(set(ids)) == 301
    assert all(e["parentId"] is None or e["parentId"] in set(ids) for e in reopened.get_entries())


def test_appends_by_another_program_are_followed(tmp_path: Path) -> None:
    m = SessionManager.create("/p", tmp_path)
    first = m.append_message(user("from arbor"))
    path = Path(m.session_file or "")
    events: list[SessionEvent] = []
    m.subscribe(events.append)
    external = {
        "type": "message",
        "id": "pi000001",
        "parentId": first,
        "timestamp": "2026-01-01T00:00:00.000Z",
        "message": assistant("from pi"),
    }
    with open(path, "a", encoding="utf-8") as fh:  # pi's appendFileSync: no lock, one line
        fh.write(serialize_line(external))
    assert m.poll_external_changes() == [external]
    assert events[-1] == ExternalAppend((external,), "pi000001") and m.leaf_id == "pi000001"
    assert m.poll_external_changes() == []
    # a partial line is not read until it is complete
    with open(path, "a", encoding="utf-8") as fh:
        fh.write('{"type":"message","id":"pi000002","parentId":"pi000001",')
    assert m.poll_external_changes() == []
    with open(path, "a", encoding="utf-8") as fh:
        fh.write('"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"x","timestamp":1}}\n')
    assert [e["id"] for e in m.poll_external_changes()] == ["pi000002"]
    # Arbor's next append sees everything and chains onto it
    mine = m.append_message(user("arbor again"))
    assert m.get_entry(mine)["parentId"] == "pi000002"
    assert [e["id"] for e in SessionManager.open(path).get_entries()] == [first, "pi000001", "pi000002", mine]


def test_external_append_is_loaded_before_own_append(tmp_path: Path) -> None:
    m = SessionManager.create("/p", tmp_path)
    first = m.append_message(user("a"))
    path = Path(m.session_file or "")
    other = SessionManager.open(path)
    second = other.append_message(assistant("b"))
    mine = m.append_message(user("c"))  # no poll: the append itself notices the other writer
    assert m.get_entry(mine)["parentId"] == second
    assert [e["id"] for e in SessionManager.open(path).get_entries()] == [first, second, mine]


def test_replaced_file_is_reloaded(tmp_path: Path) -> None:
    m = SessionManager.create("/p", tmp_path)
    m.append_message(user("a"))
    path = Path(m.session_file or "")
    events: list[SessionEvent] = []
    m.subscribe(events.append)
    shutil.copyfile(FIXTURES / "gen-0009.jsonl", tmp_path / "other.jsonl")
    os.replace(tmp_path / "other.jsonl", path)
    m.poll_external_changes()
    assert events[-1] == Reloaded("eb8484cf")
    assert m.leaf_id == "eb8484cf"


def test_parent_cycles_and_self_parents_never_hang(tmp_path: Path) -> None:
    header = '{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}\n'
    body = "".join(
        serialize_line(
            {"type": "message", "id": i, "parentId": p, "timestamp": "2025-01-01T00:00:01.000Z",
             "message": {"role": "user", "content": i, "timestamp": 1}}
        )
        for i, p in [("a", "c"), ("b", "a"), ("c", "b"), ("self", "self")]
    )
    path = tmp_path / "cycle.jsonl"
    path.write_text(header + body, encoding="utf-8")
    m = SessionManager.open(path)
    assert [e["id"] for e in m.get_branch("c")] == ["a", "b", "c"]
    assert [e["id"] for e in m.get_branch("self")] == ["self"]
    assert [msg["content"] for msg in m.build_session_context().messages] == ["self"]
    m.branch("b")
    assert [msg["content"] for msg in m.build_session_context().messages] == ["c", "a", "b"]
    assert [n.entry["id"] for n in m.get_tree()] == ["self"]  # a pure cycle has no root, as in pi


def test_write_failure_keeps_entry_and_retries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    m = SessionManager.create("/p", tmp_path)
    m.append_message(user("a"))
    path = Path(m.session_file or "")
    errors: list[SessionEvent] = []
    m.subscribe(lambda e: errors.append(e) if isinstance(e, SessionFailed) else None)

    def disk_full(fd: int, data: bytes) -> int:
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patch:
        patch.setattr(store_module.os, "write", disk_full)
        with pytest.raises(SessionFileError, match="No space left"):
            m.append_message(user("b"))
    assert errors and "No space left" in (errors[0].message or "")
    assert [e["message"]["content"][0]["text"] for e in m.get_entries()] == ["a", "b"]  # kept in memory
    m.append_message(user("c"))  # the pending "b" is written now, before "c"
    assert [e["message"]["content"][0]["text"] for e in SessionManager.open(path).get_entries()] == ["a", "b", "c"]


def test_first_value_not_a_header_opens_read_only(tmp_path: Path) -> None:
    path = tmp_path / "odd.jsonl"
    path.write_text('5\n{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}\n')
    m = SessionManager.open(path)
    assert m.read_only and m.report.header_regenerated


def test_fifo_is_not_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(SessionFileError, match="regular file"):
        SessionManager.open(fifo)


def test_deferred_sync_writes_now_and_fsyncs_later(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    m = SessionManager.create("/p", tmp_path)
    calls: list[int] = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (calls.append(fd), real(fd))[1])
    with m.deferred_sync():
        m.append_message(user("typed"))
    assert calls == [] and "typed" in Path(m.session_file or "").read_text()  # on disk, not yet synced
    m.sync()
    assert len(calls) == 1
    m.sync()
    assert len(calls) == 1  # nothing left to sync


def _wait_for(done: Callable[[], object], seconds: float = 10) -> None:
    """Until ``done()`` is true (a background fsync ran) or ``seconds`` passed; then a little more."""
    deadline = time.monotonic() + seconds
    while not done() and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.05)


def test_background_sync_writes_now_and_fsyncs_on_another_thread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    m = SessionManager.create("/p", tmp_path)
    calls: list[int] = []
    gate = threading.Event()
    real = os.fsync

    def held_fsync(fd: int) -> None:
        gate.wait(10)  # the block must end (and the file hold the line) before the fsync finishes
        calls.append(threading.get_ident())
        real(fd)

    monkeypatch.setattr(os, "fsync", held_fsync)
    with m.background_sync():
        m.append_message(user("typed"))
        m.append_message(assistant("answer", provider="x", model="y"))
    assert calls == [] and "answer" in Path(m.session_file or "").read_text()  # written, sync pending
    gate.set()
    _wait_for(lambda: calls)
    assert calls and calls[0] != threading.get_ident()  # once, on the worker thread
    assert len(calls) == 1
    m.sync()
    assert len(calls) == 1  # nothing left to sync


def test_a_failed_background_sync_is_retried_by_the_next_sync(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    m = SessionManager.create("/p", tmp_path)
    failures: list[int] = []
    real = os.fsync

    def failing(fd: int) -> None:
        failures.append(fd)
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", failing)
    with m.background_sync():
        m.append_message(user("typed"))
    _wait_for(lambda: failures)
    calls: list[int] = []
    monkeypatch.setattr(os, "fsync", lambda fd: (calls.append(fd), real(fd))[1])
    m.sync()
    assert failures and len(calls) == 1  # still owed after the failure, paid by sync()


def test_cached_context_extended_by_appends_equals_a_rebuild(tmp_path: Path) -> None:
    from desktop_app.session import build_session_context

    m = SessionManager.create("/p", tmp_path, fsync=False)
    m.append_message(user("a"))
    m.build_session_context()
    m.append_thinking_level_change("high")
    m.append_message(assistant("b", provider="x", model="y"))
    m.append_label_change(m.get_entries()[0]["id"], "l")
    m.append_custom_message_entry("ext", "note", True)
    m.append_compaction("sum", m.get_entries()[0]["id"], 10)
    m.append_message(user("c"))
    fresh = build_session_context(m.get_entries(), m.leaf_id)
    assert m.build_session_context().to_json() == fresh.to_json()
