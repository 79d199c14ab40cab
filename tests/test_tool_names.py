"""A built-in tool is known by its own module (``desktop_app/tools/<name>.py``, issue 24): outside
``desktop_app/tools/`` no code compares a tool's name with a literal such as ``"bash"`` or keeps its
own list of tool names; it asks :mod:`desktop_app.tools.registry` (``get_tool``, ``file_op``,
``main_argument``, ``format_tool_call``, ``call_view``, ``command_arguments``).

Counted: a comparison (``==``, ``!=``, ``in``, ``not in``) or ``match`` case with a string literal
naming a built-in tool, and a tuple, list, set or dict-key display holding two or more of them.
"""

from __future__ import annotations

import ast
from pathlib import Path

from desktop_app.tools import ALL_TOOLS
from tests import source

PACKAGE = Path(__file__).resolve().parents[1] / "desktop_app"
TOOL_NAMES = frozenset(ALL_TOOLS)

#: Being moved to present/ by another change; their per-tool branches become ``main_argument`` and
#: ``call_view`` look-ups once the move lands (then this list is empty).


def _literals(node: ast.AST | None) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [s for elt in node.elts for s in _literals(elt)]
    return []


def _names(node: ast.AST | None) -> set[str]:
    return TOOL_NAMES.intersection(_literals(node))


def tool_name_uses(tree: ast.AST) -> list[int]:
    """Line numbers of comparisons with, match cases on, and lists of built-in tool names."""
    lines: list[int] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(_names(o) for o in (node.left, *node.comparators)):
            lines.append(node.lineno)
        elif isinstance(node, ast.MatchValue) and _names(node.value):
            lines.append(node.lineno)
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)) and len(_names(node)) >= 2:
            lines.append(node.lineno)
        elif isinstance(node, ast.Dict) and len(TOOL_NAMES.intersection(s for k in node.keys for s in _literals(k))) >= 2:
            lines.append(node.lineno)
    return sorted(set(lines))


def outside_tools() -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for path in source.modules(PACKAGE):
        relative = path.relative_to(PACKAGE)
        if relative.parts[0] == "tools":
            continue
        lines = tool_name_uses(source.tree(path))
        if lines:
            found[relative.as_posix()] = lines
    return found


def test_the_rule_counts_what_it_says() -> None:
    tree = ast.parse(
        'name == "bash"\n'
        'x in ("read", "write")\n'
        'language == "python"\n'
        'NAMES = ("read", "bash", "edit")\n'
        'ONE = ("bash", "python")\n'
        'KEYS = {"read": 1, "ls": 2}\n'
        'LANG = {"sh": "bash", "zsh": "bash"}\n'
        'match name:\n    case "grep": pass\n    case "other": pass\n'
    )
    assert tool_name_uses(tree) == [1, 2, 4, 6, 9]


def test_no_tool_names_outside_the_tools_package() -> None:
    found = outside_tools()
    assert not found, "\n".join(f"{p}: lines {v}" for p, v in found.items())
