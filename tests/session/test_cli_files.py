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
