"""The ls tool (pi-tools.md §2.7)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from desktop_app.tools.collate import collation_key
from tests.tools.conftest import Runner


def test_icu_order_as_observed_in_pi() -> None:
    observed = "_a -b .git #h ~x 0 a_b a-b a.b a1 a10 a2 ab B e é f Zeta".split()
    shuffled = sorted(observed, reverse=True)
    assert sorted(shuffled, key=collation_key) == observed


@pytest.mark.asyncio
async def test_lists_sorted_with_slashes_and_dotfiles(project: Path, run: Runner) -> None:
    (project / "src").mkdir()
    (project / "README.md").write_text("x")
    (project / ".env").write_text("x")
    (project / "b.txt").write_text("x")
    os.symlink(project / "src", project / "link-to-src")
    os.symlink(project / "gone", project / "broken")
    result = await run("ls")
    assert result.text == ".env\nb.txt\nlink-to-src/\nREADME.md\nsrc/"
    assert result.details is None and not result.is_error


@pytest.mark.asyncio
async def test_empty_and_errors(project: Path, run: Runner) -> None:
    (project / "e").mkdir()
    (project / "f").write_text("x")
    assert (await run("ls", path="e")).text == "(empty directory)"
    missing = await run("ls", path="zz")
    assert missing.is_error and missing.text == f"Path not found: {project}/zz"
    assert (await run("ls", path="f")).text == f"Not a directory: {project}/f"


@pytest.mark.asyncio
async def test_entry_limit_notice_only_when_more_exist(project: Path, run: Runner) -> None:
    for name in "abc":
        (project / name).write_text("x")
    exact = await run("ls", limit=3)
    assert exact.text == "a\nb\nc" and exact.details is None
    cut = await run("ls", limit=2)
    assert cut.text == "a\nb\n\n[2 entries limit reached. Use limit=4 for more]"
    assert cut.details == {"entryLimitReached": 2}


@pytest.mark.asyncio
async def test_50kb_cut(project: Path, run: Runner) -> None:
    for i in range(300):
        (project / f"{i:03d}{'n' * 200}").write_text("x")
    result = await run("ls")
    assert result.text.endswith("\n\n[50.0KB limit reached]")
    assert result.details is not None and list(result.details) == ["truncation"]
    assert (
        result.details["truncation"]["outputLines"] == (51200 + 1) // 204
    )  # 203-char names plus a newline each
