"""``arbor inspect`` from the command line: one JSON document, never a traceback, never a write."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "conformance"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "desktop_app", "inspect", *args], capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("case", ["mig-v1-basic", "edge-no-header", "edge-null-line", "malformed-lines", "edge-empty-file"])
def test_prints_one_document_and_never_writes(tmp_path: Path, case: str) -> None:
    path = tmp_path / f"{case}.jsonl"
    shutil.copyfile(FIXTURES / f"{case}.jsonl", path)
    before = path.read_bytes()
    result = run("--sequential-ids", str(path))
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    doc = json.loads(result.stdout)
    assert doc["schema"] == "arbor-inspect/expected@1" and doc["case"] == case
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]  # no backup, no temp file


def test_unreadable_file_gives_one_line_and_exit_2(tmp_path: Path) -> None:
    for target in (tmp_path / "missing.jsonl", tmp_path):
        result = run(str(target))
        assert result.returncode == 2
        assert result.stdout == ""
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_garbage_bytes_still_give_a_document(tmp_path: Path) -> None:
    path = tmp_path / "binary.jsonl"
    path.write_bytes(b"\xff\xfe\x00garbage\n{\"type\":\n\x80\x81")
    result = run(str(path))
    assert result.returncode == 0 and "Traceback" not in result.stderr
    assert json.loads(result.stdout)["open"]["header_regenerated"] is True


def test_fifo_is_refused_without_hanging(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    result = run(str(fifo))
    assert result.returncode == 2 and "regular file" in result.stderr
