"""find and grep in Python with fd's and ripgrep's outputs (pi-tools.md §2.5, §2.6)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from desktop_app.tools.find import fd_pattern
from desktop_app.tools.globs import GlobMatcher
from tests.tools.conftest import Runner


def _tree(root: Path) -> None:
    (root / "src" / "deep").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def greet(name):\n    return name\n")
    (root / "src" / "deep" / "util.py").write_text("import os\ndef helper():\n    pass\n")
    (root / "src" / "deep" / "x.spec.ts").write_text("test\n")
    (root / "notes.md").write_text("TODO: write\nnothing\n")
    (root / ".hidden.py").write_text("def hidden(): pass\n")


def test_globs() -> None:
    assert GlobMatcher.compile("*.py", False).matches("a/b/c.py")
    assert not GlobMatcher.compile("*.py", True).matches("a/b/c.py")
    assert GlobMatcher.compile("**/*.py", True).matches("a/b/c.py")
    assert GlobMatcher.compile("**/*.py", True).matches("c.py")
    assert GlobMatcher.compile("*.{ts,tsx}", False).matches("x.tsx")
    assert GlobMatcher.compile("[!a]?.md", False).matches("bc.md")
    assert not GlobMatcher.compile("[!a]?.md", False).matches("ac.md")
    assert fd_pattern("src/**/*.ts").matches("/home/u/p/src/a/b.ts")
    assert not fd_pattern("src/*.ts").matches("/home/u/p/src/a/b.ts")


@pytest.mark.asyncio
async def test_find_basename_anywhere_with_hidden(project: Path, run: Runner) -> None:
    _tree(project)
    result = await run("find", pattern="*.py")
    assert result.text == ".hidden.py\nsrc/app.py\nsrc/deep/util.py"
    assert result.details is None
    spec = await run("find", pattern="src/**/*.spec.ts")
    assert spec.text == "src/deep/x.spec.ts"
    below = await run("find", pattern="*.py", path="src/deep")
    assert below.text == "util.py"


@pytest.mark.asyncio
async def test_find_lists_directories_with_slash_and_honours_gitignore_outside_git(
    project: Path, run: Runner
) -> None:
    _tree(project)
    (project / ".gitignore").write_text("deep/\n*.md\n")
    result = await run("find", pattern="*")
    assert result.text == ".gitignore\n.hidden.py\nsrc/\nsrc/app.py"


@pytest.mark.asyncio
async def test_find_limits_and_errors(project: Path, run: Runner) -> None:
    _tree(project)
    limited = await run("find", pattern="*.py", limit=2)
    assert (
        limited.text
        == ".hidden.py\nsrc/app.py\n\n[2 results limit reached. Use limit=4 for more, or refine pattern]"
    )
    assert limited.details == {"resultLimitReached": 2}
    exact = await run("find", pattern="*.py", limit=3)
    assert exact.text.endswith("[3 results limit reached. Use limit=6 for more, or refine pattern]")
    unlimited = await run("find", pattern="*.py", limit=0)
    assert unlimited.text.startswith(".hidden.py\nsrc/app.py\nsrc/deep/util.py\n\n[0 results limit reached")
    none = await run("find", pattern="*.rs")
    assert none.text == "No files found matching pattern" and not none.is_error
    bad = await run("find", pattern="*", path="notes.md")
    assert bad.is_error
    assert bad.text == (
        f"[fd error]: Search path '{project}/notes.md' is not a directory.\n[fd error]: No valid search paths given."
    )


@pytest.mark.asyncio
async def test_grep_match_lines_and_paths(project: Path, run: Runner) -> None:
    _tree(project)
    result = await run("grep", pattern="def ", path="src")
    assert result.text == "app.py:1: def greet(name):\ndeep/util.py:2: def helper():"
    assert result.details is None
    single = await run("grep", pattern="return", path="src/app.py")
    assert single.text == "app.py:2:     return name"
    hidden = await run("grep", pattern="hidden")
    assert hidden.text == ".hidden.py:1: def hidden(): pass"


@pytest.mark.asyncio
async def test_grep_options(project: Path, run: Runner) -> None:
    _tree(project)
    assert (await run("grep", pattern="todo", ignoreCase=True)).text == "notes.md:1: TODO: write"
    assert (await run("grep", pattern="todo")).text == "No matches found"
    assert (await run("grep", pattern="greet(", literal=True)).text == "src/app.py:1: def greet(name):"
    assert (await run("grep", pattern="def", glob="**/deep/*.py")).text == "src/deep/util.py:2: def helper():"
    assert (await run("grep", pattern="def", glob="app.py")).text == "src/app.py:1: def greet(name):"


@pytest.mark.asyncio
async def test_grep_context_blocks_are_not_merged(project: Path, run: Runner) -> None:
    (project / "f.txt").write_text("a\nhit1\nhit2\nb\n")
    result = await run("grep", pattern="hit", context=1)
    assert result.text == "f.txt-1- a\nf.txt:2: hit1\nf.txt-3- hit2\nf.txt-2- hit1\nf.txt:3: hit2\nf.txt-4- b"


@pytest.mark.asyncio
async def test_grep_limits_and_long_lines(project: Path, run: Runner) -> None:
    (project / "many.txt").write_text("".join(f"x{i}\r\n" for i in range(5)))
    limited = await run("grep", pattern="x", limit=2)
    assert limited.text == (
        "many.txt:1: x0\nmany.txt:2: x1\n\n[2 matches limit reached. Use limit=4 for more, or refine pattern]"
    )
    assert limited.details == {"matchLimitReached": 2}
    (project / "many.txt").unlink()
    (project / "long.txt").write_text("k" + "😀" * 300 + "\n")
    long = await run("grep", pattern="k")
    cut = "k" + "😀" * 249 + "\ud83d"  # 500 UTF-16 units: JavaScript's slice splits the last emoji
    assert long.text == (
        f"long.txt:1: {cut}... [truncated]\n\n[Some lines truncated to 500 chars. Use read tool to see full lines]"
    )
    assert long.details == {"linesTruncated": True}


@pytest.mark.asyncio
async def test_grep_50kb_cut_with_limit_notice(project: Path, run: Runner) -> None:
    (project / "w.txt").write_text("".join("m" * 400 + "\n" for _ in range(300)))
    result = await run("grep", pattern="m", limit=200)
    assert result.text.endswith(
        "\n\n[200 matches limit reached. Use limit=400 for more, or refine pattern. 50.0KB limit reached]"
    )
    assert result.details is not None
    assert list(result.details) == ["matchLimitReached", "truncation"]


@pytest.mark.asyncio
async def test_grep_errors_and_binary_files(project: Path, run: Runner) -> None:
    (project / "bin.dat").write_bytes(b"needle\0\x01")
    (project / "t.txt").write_text("needle\n")
    assert (await run("grep", pattern="needle")).text == "t.txt:1: needle"
    missing = await run("grep", pattern="x", path="nowhere")
    assert missing.is_error and missing.text == f"Path not found: {project}/nowhere"
    bad = await run("grep", pattern="(paren")
    assert bad.is_error and bad.text == "regex parse error:\n    (paren\n    ^\nerror: unclosed group"


@pytest.mark.asyncio
async def test_grep_honours_gitignore_only_inside_git(project: Path, run: Runner) -> None:
    (project / ".gitignore").write_text("ignored.txt\n")
    (project / "ignored.txt").write_text("needle\n")
    assert (await run("grep", pattern="needle")).text == "ignored.txt:1: needle"
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    assert (await run("grep", pattern="needle")).text == "No matches found"


@pytest.mark.asyncio
async def test_grep_does_not_follow_links_and_find_lists_them(tmp_path: Path, project: Path, run: Runner) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("needle outside\n")
    (project / "link.txt").symlink_to(outside)
    (project / "own.txt").write_text("needle inside\n")
    assert (await run("grep", pattern="needle")).text == "own.txt:1: needle inside"
    assert (await run("find", pattern="*.txt")).text == "link.txt\nown.txt"
