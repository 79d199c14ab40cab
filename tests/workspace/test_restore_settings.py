"""`arbor restore` leaves files over the checkpoints' size limit alone: the `checkpoints.maxFileSizeMB`
setting is the one its snapshots use (a restore compares the folder as a snapshot sees it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_app import cli
from desktop_app.session import SessionManager
from desktop_app.session.paths import arbor_home
from desktop_app.workspace import Workspace
from desktop_app.workspace.checkpoints import CHECKPOINT_TYPE, Phase, checkpoint_data


def test_arbor_restore_uses_the_size_limit_setting(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "notes.md").write_text("v1\n")
    workspace = Workspace.open(str(folder))
    first = workspace.snapshot()
    manager = SessionManager.create(str(folder), tmp_path / "sessions", fsync=False)
    manager.append_message({"role": "user", "content": "go", "timestamp": 1})
    entry = manager.append_custom_entry(CHECKPOINT_TYPE, checkpoint_data(first.id, Phase.AFTER, (), [], (), baseline=True))
    manager.close()
    (folder / "big.bin").write_bytes(b"x" * (1024 * 1024 + 1))  # over 1 MB, under the default 10 MB
    home = arbor_home()
    assert home is not None
    (home / "settings.json").write_text(json.dumps({"checkpoints": {"maxFileSizeMB": 1}}))
    assert cli.main(["restore", str(manager.session_file), entry]) == 0
    assert "D big.bin" not in capsys.readouterr().out  # skipped by the setting's limit: left alone
    (home / "settings.json").write_text("{}")
    assert cli.main(["restore", str(manager.session_file), entry]) == 0
    assert "D big.bin" in capsys.readouterr().out  # the default limit takes it in: the restore would remove it
