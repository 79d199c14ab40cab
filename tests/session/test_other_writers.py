"""Other programs writing the same file: nothing they write is missed, nothing is split (issue 13 items 3, 8).

Concurrency is tested with real second processes; one deterministic test injects the race at the
exact point it used to lose lines (between Arbor's catch-up read and its own write).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from desktop_app.session import SessionEvent, SessionFailed, SessionManager
from desktop_app.session import store as store_module
from desktop_app.session.entries import serialize_line

from .helpers import assistant, user


def _pi_line(entry_id: str, parent: str | None, text: str) -> str:
    return serialize_line(
        {"type": "message", "id": entry_id, "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z",
         "message": {"role": "user", "content": text, "timestamp": 1}}
    )


def _file_ids(path: Path) -> list[str]:
    return [json.loads(line)["id"] for line in path.read_text(encoding="utf-8").splitlines()[1:]]


def test_lines_written_between_our_read_and_our_write_reach_the_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    m = SessionManager.create("/p", tmp_path)
    first = m.append_message(user("a"))
    path = Path(m.session_file or "")
    original = store_module.SessionStore.append

    def racing_append(self: store_module.SessionStore, text: str, *, sync: bool = True) -> None:
        with open(path, "a", encoding="utf-8") as fh:  # pi's appendFileSync lands just before our write
            fh.write(_pi_line("pi000001", first, "from pi"))
        original(self, text, sync=sync)

    monkeypatch.setattr(store_module.SessionStore, "append", racing_append)
    mine = m.append_message(user("b"))
    monkeypatch.setattr(store_module.SessionStore, "append", original)
    assert m.get_entry("pi000001") is not None
    assert [e["id"] for e in m.get_entries()] == _file_ids(path) == [first, "pi000001", mine]
    assert m.leaf_id == mine and m.get_entry(mine)["parentId"] == first
    assert m.poll_external_changes() == []  # nothing read twice
    after = m.append_message(user("c"))
    assert _file_ids(path) == [first, "pi000001", mine, after]


WRITER = textwrap.dedent(
    """
    import json, sys, time
    path, count = sys.argv[1], int(sys.argv[2])
    for n in range(count):
        line = json.dumps({"type": "message", "id": f"pi{n:06d}", "parentId": None,
                           "timestamp": "2026-01-01T00:00:00.000Z",
                           "message": {"role": "user", "content": f"pi {n}", "timestamp": 1}},
                          separators=(",", ":")) + "\\n"
        with open(path, "a", encoding="utf-8") as fh:  # one whole line per write, no lock, like pi
            fh.write(line)
        time.sleep(0.0005)
    """
)


def test_a_pi_style_writer_racing_our_appends_loses_nothing(tmp_path: Path) -> None:
    m = SessionManager.create("/p", tmp_path, fsync=False)
    m.append_message(user("start"))
    path = Path(m.session_file or "")
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path), "400"])
    ours = []
    while writer.poll() is None or len(ours) < 20:
        ours.append(m.append_message(assistant(f"ours {len(ours)}")))
    writer.wait(timeout=60)
    m.poll_external_changes()
    on_disk = _file_ids(path)
    assert len(on_disk) == len(set(on_disk)) == 401 + len(ours)
    assert [e["id"] for e in m.get_entries()] == on_disk  # every line, in file order, once
    assert [e["id"] for e in SessionManager.open(path).get_entries()] == on_disk


HALF_WRITER = textwrap.dedent(
    """
    import sys, time, pathlib
    path, flags, pause = sys.argv[1], pathlib.Path(sys.argv[2]), float(sys.argv[3])
    line = sys.stdin.read()
    cut = len(line) // 2
    with open(path, "a", encoding="utf-8", buffering=1) as fh:
        fh.write(line[:cut]); fh.flush()              # first write(): half a line
        (flags / "half").touch()
        if pause < 0:
            while not (flags / "go").exists():
                time.sleep(0.005)
        else:
            time.sleep(pause)
        fh.write(line[cut:]); fh.flush()              # second write(): the rest and its newline
    """
)


def _start_half_writer(path: Path, flags: Path, pause: float, line: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HALF_WRITER, str(path), str(flags), str(pause)], stdin=subprocess.PIPE, text=True
    )
    assert proc.stdin is not None
    proc.stdin.write(line)
    proc.stdin.close()
    deadline = time.monotonic() + 30
    while not (flags / "half").exists():
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.005)
    return proc


def test_a_line_written_in_two_calls_is_read_whole_while_following(tmp_path: Path) -> None:
    m = SessionManager.create("/p", tmp_path)
    first = m.append_message(user("a"))
    path = Path(m.session_file or "")
    failures: list[SessionEvent] = []
    m.subscribe(lambda e: failures.append(e) if isinstance(e, SessionFailed) else None)
    writer = _start_half_writer(path, tmp_path, -1, _pi_line("pi000001", first, "two writes"))
    assert m.poll_external_changes() == []  # half a line: not yet complete, not an error
    assert m.poll_external_changes() == []
    (tmp_path / "go").touch()
    assert writer.wait(timeout=30) == 0
    [entry] = m.poll_external_changes()
    assert entry["id"] == "pi000001" and entry["message"]["content"] == "two writes"
    assert failures == [] and m.report.malformed_lines == []


def test_a_line_half_written_when_we_open_is_not_malformed_and_is_read_when_finished(tmp_path: Path) -> None:
    m = SessionManager.create("/p", tmp_path)
    first = m.append_message(user("a"))
    path = Path(m.session_file or "")
    writer = _start_half_writer(path, tmp_path, -1, _pi_line("pi000001", first, "two writes"))
    opened = SessionManager.open(path)  # between the writer's two write() calls
    assert opened.report.torn_last_line and opened.report.malformed_lines == []  # unfinished, not unreadable
    assert [e["id"] for e in opened.get_entries()] == [first]
    failures: list[SessionEvent] = []
    opened.subscribe(lambda e: failures.append(e) if isinstance(e, SessionFailed) else None)
    assert opened.poll_external_changes() == []  # still half a line: still nothing to report
    (tmp_path / "go").touch()
    assert writer.wait(timeout=30) == 0
    [entry] = opened.poll_external_changes()
    assert entry["id"] == "pi000001" and entry["message"]["content"] == "two writes"
    assert failures == [] and opened.report.malformed_lines == []
    mine = opened.append_message(assistant("ours"), parent_id="pi000001")
    assert _file_ids(path) == [first, "pi000001", mine]
    assert [e["id"] for e in SessionManager.open(path).get_entries()] == [first, "pi000001", mine]


def test_our_append_waits_for_a_line_being_written_instead_of_tearing_it(tmp_path: Path) -> None:
    m = SessionManager.create("/p", tmp_path)
    first = m.append_message(user("a"))
    path = Path(m.session_file or "")
    failures: list[SessionEvent] = []
    m.subscribe(lambda e: failures.append(e) if isinstance(e, SessionFailed) else None)
    writer = _start_half_writer(path, tmp_path, 0.1, _pi_line("pi000001", first, "two writes"))
    mine = m.append_message(assistant("ours"))  # the other line is half-written right now
    assert writer.wait(timeout=30) == 0
    m.poll_external_changes()
    assert _file_ids(path) == [first, "pi000001", mine]  # both lines whole, theirs first
    assert [e["id"] for e in m.get_entries()] == [first, "pi000001", mine]
    assert failures == []
