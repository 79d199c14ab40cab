"""``arbor install-desktop-entry``: the desktop entry and its icons land in ``$XDG_DATA_HOME`` (a temp
folder here), the entry starts this Arbor, and a path with spaces is quoted as the Desktop Entry spec
says."""

from __future__ import annotations

import configparser
import shlex
import subprocess
from pathlib import Path

import pytest

from desktop_app import desktop_entry
from desktop_app.agent.startup import RESOURCES
from desktop_app.cli import main

ROOT = Path(__file__).resolve().parents[2]


def _entry(path: Path) -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read(path, encoding="utf-8")
    return parser["Desktop Entry"]


def test_the_entry_and_icons_go_to_xdg_data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data home"
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    assert main(["install-desktop-entry"]) == 0
    entry_file = data / "applications" / "arbor.desktop"
    entry = _entry(entry_file)
    shipped = _entry(ROOT / "packaging" / "arbor.desktop")
    assert {k: v for k, v in entry.items() if k != "Exec"} == {k: v for k, v in shipped.items() if k != "Exec"}
    assert entry["Icon"] == "arbor" and entry["Exec"].endswith(" %f")
    program = shlex.split(entry["Exec"])[:-1]
    assert program == desktop_entry.arbor_command() and Path(program[0]).is_file()
    assert (data / "icons/hicolor/scalable/apps/arbor.svg").read_bytes() == (RESOURCES / "icons/arbor.svg").read_bytes()
    assert (data / "icons/hicolor/256x256/apps/arbor.png").read_bytes() == (RESOURCES / "icons/arbor.png").read_bytes()
    printed = capsys.readouterr().out
    assert str(entry_file) in printed
    assert main(["install-desktop-entry"]) == 0  # again: replaced, not duplicated
    assert sorted(p.name for p in (data / "applications").iterdir()) == ["arbor.desktop"]


def test_the_installed_command_starts_arbor(tmp_path: Path) -> None:
    written = desktop_entry.install_desktop_entry(tmp_path)
    program = shlex.split(_entry(written[0])["Exec"])[:-1]
    result = subprocess.run([*program, "--version"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stdout.startswith("arbor ")


def test_a_path_with_spaces_and_quotes_is_quoted_as_the_spec_says(tmp_path: Path) -> None:
    written = desktop_entry.install_desktop_entry(tmp_path, ["/opt/My Apps/arbor \"x\"/arbor"])
    raw = next(line for line in written[0].read_text().splitlines() if line.startswith("Exec="))
    # quoted, the inner quote escaped, and that backslash doubled for the key file
    assert raw == 'Exec="/opt/My Apps/arbor \\\\"x\\\\"/arbor" %f'
    assert desktop_entry.desktop_exec(["/usr/bin/arbor"]) == "/usr/bin/arbor %f"


def test_a_relative_xdg_data_home_is_ignored(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", "relative/share")
    assert desktop_entry.xdg_data_home() == tmp_path / ".local" / "share"
    monkeypatch.delenv("XDG_DATA_HOME")
    assert desktop_entry.xdg_data_home() == tmp_path / ".local" / "share"
