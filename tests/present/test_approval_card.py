"""The approval card's content for real calls (through the agent's ``describe_approval``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from desktop_app.present.approval_card import approval_card
from desktop_app.tools import ApprovalDecision, ToolContext, describe_approval


def _card(tmp_path: Path, name: str, arguments: dict[str, Any]) -> Any:
    request = describe_approval({"type": "toolCall", "id": "c1", "name": name, "arguments": arguments},
                                ToolContext(cwd=str(tmp_path)))
    assert request is not None
    return approval_card(request)


def test_an_edit_shows_its_unified_diff(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\ny = 2\n")
    card = _card(tmp_path, "edit", {"path": "a.py", "edits": [{"oldText": "y = 2", "newText": "y = 3"}]})
    assert card.tool_name == "edit" and card.title == "Edit a.py?"
    assert card.language == "diff" and card.warning is None
    assert "-2 y = 2" in card.body and "+2 y = 3" in card.body
    assert card.facts == (str(tmp_path / "a.py"),)


def test_an_edit_that_would_fail_shows_the_error_instead_of_a_diff(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\nx = 1\n")
    card = _card(tmp_path, "edit", {"path": "a.py", "edits": [{"oldText": "x = 1", "newText": "x = 2"}]})
    assert card.body == "" and card.language is None
    assert card.warning is not None and card.warning.startswith("This edit would fail: ")
    assert "occurrences" in card.warning or "unique" in card.warning


def test_a_write_shows_path_size_and_a_bounded_preview(tmp_path: Path) -> None:
    content = "\n".join(f"line {i}" for i in range(100))
    card = _card(tmp_path, "write", {"path": "notes.txt", "content": content})
    assert card.title == "Write notes.txt?"
    assert card.facts[0] == str(tmp_path / "notes.txt")
    assert f"({len(content.encode()):,} bytes, 100 lines)" in card.facts[1]
    assert card.body.splitlines()[:2] == ["line 0", "line 1"]
    assert card.body.splitlines()[-1] == "… 60 more lines" and "line 40" not in card.body
    assert card.warning is None


def test_a_write_over_an_existing_file_warns(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("old")
    card = _card(tmp_path, "write", {"path": "notes.txt", "content": "new\n"})
    assert card.warning == "The file exists and will be overwritten."
    assert "1 line)" in card.facts[1] and card.body == "new\n"


def test_bash_shows_the_command_and_the_folder(tmp_path: Path) -> None:
    card = _card(tmp_path, "bash", {"command": "ls -la", "timeout": 5})
    assert card.title == "Run this command?" and card.body == "ls -la" and card.language == "bash"
    assert card.facts == (f"in {tmp_path}", "timeout 5 s")


def test_three_answers_in_order_with_mnemonics(tmp_path: Path) -> None:
    card = _card(tmp_path, "bash", {"command": "true"})
    assert [b.decision for b in card.buttons] == [
        ApprovalDecision.ALLOW_ONCE, ApprovalDecision.ALLOW_ALWAYS, ApprovalDecision.DENY
    ]
    assert all("&" in b.label for b in card.buttons)
    assert len({b.label[b.label.index("&") + 1].lower() for b in card.buttons}) == 3
