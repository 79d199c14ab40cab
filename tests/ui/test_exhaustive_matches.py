"""Every ``match`` in ``desktop_app/ui/`` is exhaustive (issue 24 item 5): one that ends in a
wildcard ends in ``assert_never``, never in ``case _: pass``. A consumer that ignores some events
names them (``case A() | B(): pass``), so a new event class, update or command is a mypy error
where it arrives instead of being dropped in silence."""

from __future__ import annotations

import ast
from pathlib import Path

import desktop_app
from tests import source

UI = Path(desktop_app.__file__).parent / "ui"

#: The consumers of the typed unions: (file, function) → what they match on.
CONSUMERS = {
    ("steering.py", "on_agent_event"): "AgentEvent",
    ("steering.py", "run_menu_action"): "MenuAction",
    ("main_window.py", "_apply_chat"): "ChatUpdate",
    ("chat/panel.py", "apply"): "ChatUpdate",
    ("graph/canvas_input.py", "execute"): "GraphCommand",
}


def _is_wildcard(case: ast.match_case) -> bool:
    """``case _``, ``case name`` or ``case _ as name`` (``MatchAs`` around a bare ``MatchAs``)."""
    pattern = case.pattern
    if isinstance(pattern, ast.MatchAs) and isinstance(pattern.pattern, ast.MatchAs):
        pattern = pattern.pattern
    return isinstance(pattern, ast.MatchAs) and pattern.pattern is None


def _ends_in_assert_never(match: ast.Match) -> bool:
    last = match.cases[-1]
    if not _is_wildcard(last):
        return False
    body = last.body
    return (
        len(body) == 1
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Call)
        and isinstance(body[0].value.func, ast.Name)
        and body[0].value.func.id == "assert_never"
    )


def silent_wildcards(root: Path) -> list[str]:
    """``file:line`` of every match whose last case is a wildcard that is not ``assert_never``."""
    found = []
    for path in source.modules(root):
        tree = source.tree(path)
        for node in ast.walk(tree):
            if isinstance(node, ast.Match) and _is_wildcard(node.cases[-1]) and not _ends_in_assert_never(node):
                found.append(f"{path.relative_to(root).as_posix()}:{node.cases[-1].pattern.lineno}")
    return found


def test_the_check_sees_a_silent_wildcard(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(
        "match x:\n    case 1:\n        pass\n    case _:\n        pass\n"
        "match y:\n    case 1:\n        pass\n    case _ as never:\n        assert_never(never)\n"
        "match z:\n    case 1:\n        pass\n    case _ as other:\n        print(other)\n"
    )
    assert silent_wildcards(tmp_path) == ["a.py:4", "a.py:14"]


def test_no_match_in_ui_ends_in_a_silent_wildcard() -> None:
    assert silent_wildcards(UI) == []


def test_union_consumers_end_in_assert_never() -> None:
    missing = []
    for (file, function), union in CONSUMERS.items():
        tree = source.tree(UI / file)
        defs = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == function]
        assert defs, f"{file}: no {function}()"
        matches = [n for d in defs for n in ast.walk(d) if isinstance(n, ast.Match)]
        if not matches or not all(_ends_in_assert_never(m) for m in matches):
            missing.append(f"{file}:{function} ({union})")
    assert missing == []
