"""What :class:`OpenReport` says about a file: unreadable lines by their line number in the file,
however they were read (at open, while following, after a race with our own append), and an
unfinished last line found at open (issue 13)."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_app.session import SessionManager
from desktop_app.session import store as store_module
from desktop_app.session.entries import serialize_line

from .helpers import user


def _pi_line(entry_id: str, parent: str | None, text: str) -> str:
    return serialize_line(
        {"type": "message", "id": entry_id, "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z",
         "message": {"role": "user", "content": text, "timestamp": 1}}
    )


def _line_of(path: Path, text: str) -> int:
    """The 1-based number of the file's line that is exactly ``text``."""
    return path.read_text(encoding="utf-8").split("\n").index(text) + 1


def test_unreadable_lines_appended_by_another_writer_are_reported_by_their_file_line(tmp_path: Path) -> None:
    m = SessionManager.create("/p", tmp_path)
    first = m.append_message(user("a"))
    m.append_message(user("b"))
    path = Path(m.session_file or "")
    with open(path, "a", encoding="utf-8") as fh:  # lines 4, 5, 6
        fh.write(_pi_line("pi000001", first, "ok") + "{broken one\n" + _pi_line("pi000002", "pi000001", "ok"))
    assert [e["id"] for e in m.poll_external_changes()] == ["pi000001", "pi000002"]
    assert m.report.malformed_lines == [_line_of(path, "{broken one")] == [5]
    m.append_message(user("c"))  # line 7: ours, counted too
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("\n{broken two\n")  # a blank line 8, then line 9
    assert m.poll_external_changes() == []
    assert m.report.malformed_lines == [5, _line_of(path, "{broken two")] == [5, 9]
    assert SessionManager.open(path).report.malformed_lines == [5, 9]  # the same numbers as a fresh open


def test_an_unreadable_line_that_raced_our_append_is_reported_by_its_file_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    m = SessionManager.create("/p", tmp_path)
    for text in ("a", "b", "c"):
        m.append_message(user(text))  # lines 2-4
    path = Path(m.session_file or "")
    original = store_module.SessionStore.append

    def racing_append(self: store_module.SessionStore, text: str, *, sync: bool = True) -> bool:
        with open(path, "a", encoding="utf-8") as fh:  # lands just before our write: line 5
            fh.write("{half of nothing\n")
        return original(self, text, sync=sync)

    monkeypatch.setattr(store_module.SessionStore, "append", racing_append)
    m.append_message(user("d"))  # line 6; the catch-up read starts at line 5
    monkeypatch.setattr(store_module.SessionStore, "append", original)
    assert m.report.malformed_lines == [_line_of(path, "{half of nothing")] == [5]


def test_an_unfinished_last_line_at_open_is_reported_as_torn_and_not_as_malformed(tmp_path: Path) -> None:
    m = SessionManager.create("/p", tmp_path)
    first = m.append_message(user("a"))
    path = Path(m.session_file or "")
    whole = _pi_line("pi000001", first, "two writes")
    path.write_bytes(path.read_bytes() + whole[:25].encode())  # a writer between its two write() calls
    opened = SessionManager.open(path)
    assert opened.report.torn_last_line and opened.report.malformed_lines == []
    assert [e["id"] for e in opened.get_entries()] == [first]
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(whole[25:])  # the rest arrives: read whole while following
    assert [e["id"] for e in opened.poll_external_changes()] == ["pi000001"]
    assert opened.report.malformed_lines == []
    assert not SessionManager.open(path).report.torn_last_line  # complete now


def test_a_last_line_that_lacks_only_its_newline_is_not_torn(tmp_path: Path) -> None:
    m = SessionManager.create("/p", tmp_path)
    first = m.append_message(user("a"))
    path = Path(m.session_file or "")
    path.write_bytes(path.read_bytes() + _pi_line("pi000001", first, "no newline").rstrip("\n").encode())
    opened = SessionManager.open(path)
    assert not opened.report.torn_last_line and opened.report.malformed_lines == []
    assert [e["id"] for e in opened.get_entries()] == [first, "pi000001"]
