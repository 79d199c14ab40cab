"""``arbor inspect`` from the command line: one JSON document, never a traceback, never a write."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_runs import arbor_in_process

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "conformance"


def run_process(*args: str) -> subprocess.CompletedProcess[str]:
    """``arbor inspect`` in a fresh interpreter: its own recursion limit and its real entry point."""
    return subprocess.run(
        [sys.executable, "-m", "desktop_app", "inspect", *args], capture_output=True, text=True, timeout=120
    )


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return arbor_in_process("inspect", *args)


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
    result = run_process(str(path))
    assert result.returncode == 0 and "Traceback" not in result.stderr
    assert json.loads(result.stdout)["open"]["header_regenerated"] is True


def test_fifo_is_refused_without_hanging(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    result = run(str(fifo))
    assert result.returncode == 2 and "regular file" in result.stderr


@pytest.mark.parametrize("depth", [981, 1000, 1023])
def test_deeply_nested_json_is_reported_not_a_recursion_error(tmp_path: Path, depth: int) -> None:
    # JSON.parse (and the line parser) take these depths; the report must write them back out whole
    details = "[" * depth + "]" * depth
    header = '{"type":"session","version":3,"id":"s","timestamp":"2025-06-01T10:00:00.000Z","cwd":"/p"}\n'
    entry = (
        '{"type":"custom_message","customType":"deep","content":"x","display":true,"details":' + details
        + ',"id":"a","parentId":null,"timestamp":"2025-06-01T10:00:01.000Z"}\n'
    )
    path = tmp_path / "deep.jsonl"
    path.write_text(header + entry, encoding="utf-8")
    result = run_process(str(path))
    assert result.returncode == 0 and "RecursionError" not in result.stderr, result.stderr[-500:]
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * depth))  # only so that the stdlib parser can check the output
    try:
        doc = json.loads(result.stdout)
    finally:
        sys.setrecursionlimit(limit)
    written = doc["entries"][0]["details"]
    for _ in range(depth - 1):
        assert isinstance(written, list) and len(written) == 1
        written = written[0]
    assert written == []


def _tokens(result: subprocess.CompletedProcess[str]) -> list[object]:
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    return [doc["pi_version"], doc["message_tokens"]]


def _session_with_a_user_image(path: Path) -> str:
    image = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
    message = {"role": "user", "content": [{"type": "text", "text": "what is this?"}, image], "timestamp": 1}
    lines = [
        {"type": "session", "version": 3, "id": "s", "timestamp": "2025-06-01T10:00:00.000Z", "cwd": "/p"},
        {"type": "message", "id": "u1", "parentId": None, "timestamp": "2025-06-01T10:00:01.000Z", "message": message},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return str(path)


def test_pi_option_and_setting_choose_whose_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A user image: pi 1.6.0 weighs it (1200 tokens), 0.73.1 does not."""
    monkeypatch.setenv("ARBOR_HOME", str(tmp_path))
    case = _session_with_a_user_image(tmp_path / "image.jsonl")
    default, old, new = _tokens(run(case)), _tokens(run("--pi", "0.73.1", case)), _tokens(run("--pi", "1.6.0", case))
    assert default == new and new[0] == "1.6.0" and old[0] == "0.73.1"
    assert sum(t for t in new[1] if isinstance(t, int)) > sum(t for t in old[1] if isinstance(t, int)) + 1000
    (tmp_path / "settings.json").write_text(json.dumps({"piVersion": "0.73.1"}))
    assert _tokens(run(case)) == old  # the setting chooses ...
    assert _tokens(run("--pi", "1.6.0", case)) == new  # ... and --pi overrides it for one run
    refused = run("--pi", "2.0", case)
    assert refused.returncode == 2 and "0.73.1" in refused.stderr
