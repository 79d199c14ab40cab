"""Moving a file to the freedesktop.org trash ($XDG_DATA_HOME/Trash): files/ plus a .trashinfo record."""

from __future__ import annotations

import urllib.parse
from pathlib import Path

import pytest

from desktop_app.present.trash import TrashError, home_trash, move_to_trash


def test_moves_the_file_and_writes_the_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    source = tmp_path / "my dir" / "a b.jsonl"
    source.parent.mkdir()
    source.write_text("hello")
    target = move_to_trash(source)
    assert not source.exists()
    assert target == tmp_path / "data" / "Trash" / "files" / "a b.jsonl"
    assert target.read_text() == "hello"
    record = (tmp_path / "data" / "Trash" / "info" / "a b.jsonl.trashinfo").read_text().splitlines()
    assert record[0] == "[Trash Info]"
    assert record[1] == f"Path={urllib.parse.quote(str(source), safe='/')}"
    assert "%20" in record[1]
    assert record[2].startswith("DeletionDate=") and len(record[2]) == len("DeletionDate=2026-01-01T00:00:00")


def test_a_second_file_of_the_same_name_gets_another_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    for folder in ("one", "two"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "s.jsonl").write_text(folder)
    first = move_to_trash(tmp_path / "one" / "s.jsonl")
    second = move_to_trash(tmp_path / "two" / "s.jsonl")
    assert first.name == "s.jsonl" and second.name == "s.2.jsonl"
    assert second.read_text() == "two"
    assert (home_trash() / "info" / "s.2.jsonl.trashinfo").is_file()


def test_a_missing_file_is_an_error_and_leaves_no_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    with pytest.raises(TrashError):
        move_to_trash(tmp_path / "nothing.jsonl")
    assert not list((tmp_path / "data").rglob("*.trashinfo"))


def test_a_failed_move_keeps_the_file_and_drops_the_reservation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    source = tmp_path / "s.jsonl"
    source.write_text("keep me")

    def refuse(*_args: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("desktop_app.present.trash.os.rename", refuse)
    with pytest.raises(TrashError, match="Permission denied"):
        move_to_trash(source)
    assert source.read_text() == "keep me"
    assert not list((tmp_path / "data").rglob("*.trashinfo"))
