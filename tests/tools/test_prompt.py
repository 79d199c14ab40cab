"""pi's tool section of the system prompt."""

from __future__ import annotations

import datetime

from desktop_app.tools import DEFAULT_TOOLS, READ_ONLY_TOOLS
from desktop_app.tools.prompt import environment_prompt, tools_prompt


def test_default_tools_section() -> None:
    text = tools_prompt(DEFAULT_TOOLS)
    listing, custom, guidelines = text.split("\n\n")
    assert listing.split("\n") == [
        "Available tools:",
        "- read: Read file contents",
        "- bash: Execute bash commands (ls, grep, find, etc.)",
        "- edit: Make precise file edits with exact text replacement, including multiple disjoint edits in one call",
        "- write: Create or overwrite files",
    ]
    assert custom.startswith("In addition to the tools above")
    lines = guidelines.split("\n")
    assert lines[0] == "Guidelines:"
    assert lines[1] == "- Use bash for file operations like ls, rg, find"
    assert lines[2] == "- Use read to examine files instead of cat or sed."
    assert lines[-2:] == [
        "- Be concise in your responses",
        "- Show file paths clearly when working with files",
    ]
    assert len(lines) == 1 + 1 + 1 + 4 + 1 + 2


def test_bash_with_exploration_tools_and_no_tools() -> None:
    assert "- Prefer grep/find/ls tools over bash" in tools_prompt(["bash", "ls"])
    read_only = tools_prompt(READ_ONLY_TOOLS)
    assert "bash" not in read_only and "- ls: List directory contents" in read_only
    assert tools_prompt([]).startswith("Available tools:\n(none)\n\n")


def test_environment_lines() -> None:
    assert environment_prompt("/p", datetime.date(2026, 12, 2)) == (
        "\nCurrent date: 2026-12-02\nCurrent working directory: /p"
    )
