"""Claude Code transcripts in the Sessions panel's listing (issue 27 point 2): ``CLAUDE_CONFIG_DIR``
honoured, grouped by the transcript's working folder, titled, counted, searched; subagent files left out."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from desktop_app.present.sessions import CLAUDE_CODE, SessionSources, build_groups
from desktop_app.transcripts import claude_projects_root

SOURCES = Path(__file__).resolve().parent.parent / "fixtures" / "claude_code"


def test_transcripts_are_listed_grouped_titled_and_searched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    assert claude_projects_root() == config / "projects"
    folder = config / "projects" / "-home-kim-code-weather-app"
    folder.mkdir(parents=True)
    for case in ("basic", "compacted", "sidechains"):
        shutil.copyfile(SOURCES / f"{case}.jsonl", folder / f"{case}.jsonl")
    shutil.copyfile(SOURCES / "basic.jsonl", folder / "agent-1a2b3c.jsonl")  # a subagent's own file
    sources = SessionSources(tmp_path / "arbor", tmp_path / "pi")
    found = sources.list()
    assert {source for source, _ in found} == {CLAUDE_CODE}
    assert sorted(info.path.name for _, info in found) == ["basic.jsonl", "compacted.jsonl", "sidechains.jsonl"]
    groups = build_groups(found)
    assert len(groups) == 1 and groups[0].folder == "/home/kim/code/weather-app" and groups[0].label == "weather-app"
    rows = {Path(row.path).name: row for row in groups[0].rows}
    assert rows["basic.jsonl"].title == "Forecast temperatures in Celsius" and rows["basic.jsonl"].named
    assert rows["compacted.jsonl"].title.startswith("Write a parser for the METAR")
    assert rows["basic.jsonl"].message_count == 11 and rows["basic.jsonl"].source == CLAUDE_CODE
    assert [Path(p).name for _, i in sources.list("no-store") for p in [str(i.path)]] == ["sidechains.jsonl"]
    assert [i.path.name for _, i in sources.list("altimeter Q1013")] == ["compacted.jsonl"]
