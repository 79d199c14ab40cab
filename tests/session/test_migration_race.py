"""Two processes open (and append to) the same v1 file at once (issue 13 items 1, 9).

The migration happens once, under a lock that follows the file across its rename; the second
process re-reads after acquiring it and takes the migrated file as it is: no entry lost, ids
stable, one backup. A migration that fails leaves no backup behind.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from desktop_app.session import SessionManager
from desktop_app.session import store as store_module

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "conformance"

OPEN_AND_APPEND = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from desktop_app.session import SessionManager
    path, name, go = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    while not go.exists():
        time.sleep(0.001)
    m = SessionManager.open(path, fsync=False)
    for n in range(5):
        print(m.append_message({"role": "user", "content": f"{name} {n}", "timestamp": 1}))
    """
)


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("round_", range(4))
def test_two_processes_migrating_one_v1_file_lose_nothing(tmp_path: Path, round_: int) -> None:
    path = tmp_path / "old.jsonl"
    shutil.copyfile(FIXTURES / "mig-v1-basic.jsonl", path)
    go = tmp_path / "go"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", OPEN_AND_APPEND, str(path), name, str(go)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        )
        for name in ("first", "second")
    ]
    go.touch()
    outputs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [err for _, err in outputs]
    written = [i for out, _ in outputs for i in out.split()]
    lines = _lines(path)
    assert lines[0]["type"] == "session" and lines[0]["version"] == 3
    ids = [e["id"] for e in lines[1:]]
    assert len(ids) == len(set(ids))  # one migration: no entry twice under two sets of ids
    assert set(written) <= set(ids) and len(written) == 10  # every append of both is in the file
    by_id = {e["id"]: e for e in lines[1:]}
    assert all(by_id[i]["parentId"] in by_id for i in written)  # and hangs in the migrated tree
    migrated = len(_lines(FIXTURES / "mig-v1-basic.jsonl")) - 1
    assert len(ids) == migrated + 10
    assert len(list(tmp_path.glob("old.jsonl.bak-*"))) == 1
    reopened = SessionManager.open(path)
    assert [e["id"] for e in reopened.get_entries()] == ids  # ids stable from now on


def test_a_failed_migration_leaves_no_backup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "old.jsonl"
    shutil.copyfile(FIXTURES / "mig-v1-basic.jsonl", path)
    before = path.read_bytes()

    def no_space(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store_module.os, "replace", no_space)
    for _ in range(3):  # every attempt fails; none leaves a .bak behind
        m = SessionManager.open(path)
        assert m.read_only and "Could not migrate" in (m.report.error or "")
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.jsonl"]
