"""The bundle's launcher (``packaging/launcher.py``) without building the bundle: ``--dot-worker`` runs
the Graphviz child, and any other start tells the layout to use the launcher itself as that child.

The slow bundle test (``test_bundle.py``) covers the frozen program; these catch a launcher that
names a module which moved, in a second."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import desktop_app.cli
from desktop_app.present import layout

ROOT = Path(__file__).resolve().parents[2]
LAUNCHER = ROOT / "packaging" / "launcher.py"


def _launcher() -> ModuleType:
    spec = importlib.util.spec_from_file_location("arbor_launcher", LAUNCHER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_dot_worker_flag_lays_out_a_graph(tmp_path: Path) -> None:
    request = json.dumps({"nodes": 3, "edges": [[0, 1], [0, 2]], "width": 100, "height": 40,
                          "nodesep": 20, "ranksep": 30})
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)  # this tree
    done = subprocess.run([sys.executable, str(LAUNCHER), "--dot-worker"], input=request, capture_output=True,
                          text=True, cwd=tmp_path, timeout=60, env={**os.environ, "PYTHONPATH": path})
    assert done.returncode == 0, done.stdout + done.stderr
    positions = json.loads(done.stdout)["positions"]
    assert len(positions) == 3
    assert positions[0][1] < positions[1][1] == positions[2][1]  # the root above its two children


def test_a_normal_start_makes_the_launcher_the_layout_child(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(layout, "WORKER_COMMAND", None)
    monkeypatch.setattr(desktop_app.cli, "main", lambda: 7)
    monkeypatch.setattr(sys, "argv", ["arbor", "--version"])
    launcher = _launcher()
    assert launcher.main() == 7
    assert layout.WORKER_COMMAND == [sys.executable, launcher.DOT_WORKER_FLAG]
