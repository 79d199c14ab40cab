"""``arbor screenshot`` names what it was given when it is not a session file (issue 13 item 9)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def _screenshot(target: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "desktop_app", "screenshot", str(target), "--out", str(out)],
        capture_output=True, text=True, timeout=60,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "QT_QPA_PLATFORM": "offscreen"},
    )


@pytest.mark.parametrize(("kind", "said"), [("fifo", "named pipe (FIFO)"), ("dir", "is a directory"), ("missing", "no such session file")])
def test_screenshot_says_what_the_path_is(tmp_path: Path, kind: str, said: str) -> None:
    target = tmp_path / "thing.jsonl"
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "dir":
        target.mkdir()
    result = _screenshot(target, tmp_path / "out.png")
    assert result.returncode == 2 and said in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "out.png").exists()


def test_a_file_replaced_by_garbage_is_reported_as_garbage_not_empty(tmp_path: Path) -> None:
    from desktop_app.session import SessionManager

    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\x00\x01 not json at all\n<<<garbage>>>\n")
    m = SessionManager.open(path)
    assert m.read_only and "empty" not in (m.report.error or "")
    assert "none of its 2 line(s) is readable JSON" in (m.report.error or "")
