"""Outside ``session/`` an entry's, message's or block's kind is asked of ``session.kinds``, not
compared with a string (issue 24): a new kind is then a mypy error where it matters, not a search.

Counted: every comparison (``==``, ``!=``, ``in``, ``not in``, ``match`` cases) of a string literal that
names an entry type, a role or a block type with a read of a ``"type"`` or ``"role"`` key
(``x.get("type")``, ``x["role"]``) or a variable named for one (``role``, ``entry_type``, ``kind``).
The Anthropic SDK's own objects (``event.type``, attributes, not keys) are the wire format, not pi's
kinds, and are not counted.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from desktop_app.session.kinds import BlockKind, EntryKind, Role
from tests import source

PACKAGE = Path(__file__).resolve().parents[1] / "desktop_app"
KIND_WORDS = {k.value for k in (*EntryKind, *Role, *BlockKind)} - {"?"}
BUDGET = 20


def _literals(node: ast.expr) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [s for elt in node.elts for s in _literals(elt)]
    return []


def _reads_a_kind(node: ast.expr) -> bool:
    """``x.get("type")``, ``x["role"]`` or a name like ``role``, ``entry_type``, ``kind``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        return bool(node.args) and _literals(node.args[0]) in (["type"], ["role"])
    if isinstance(node, ast.Subscript):
        return _literals(node.slice) in (["type"], ["role"])
    if isinstance(node, ast.Name):
        return node.id == "kind" or node.id.endswith(("role", "type"))
    return False


def _counts(operands: list[ast.expr]) -> bool:
    return any(_reads_a_kind(o) for o in operands) and any(w in KIND_WORDS for o in operands for w in _literals(o))


def comparisons(tree: ast.AST) -> list[int]:
    """Line numbers of comparisons of a kind word in ``tree``."""
    lines: list[int] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and _counts([node.left, *node.comparators]):
            lines.append(node.lineno)
        elif isinstance(node, ast.Match) and _reads_a_kind(node.subject):
            for case in node.cases:
                for pattern in ast.walk(case.pattern):
                    if isinstance(pattern, ast.MatchValue) and any(w in KIND_WORDS for w in _literals(pattern.value)):
                        lines.append(pattern.lineno)
    return sorted(lines)


@functools.cache
def outside_session() -> dict[str, list[int]]:
    """File → lines of kind comparisons outside ``session/`` (cached per process: read, do not change)."""
    found: dict[str, list[int]] = {}
    for path in source.modules(PACKAGE):
        if "session" in path.relative_to(PACKAGE).parts[:1]:
            continue
        lines = comparisons(source.tree(path))
        if lines:
            found[str(path.relative_to(PACKAGE))] = lines
    return found


def test_the_rule_counts_what_it_says() -> None:
    tree = ast.parse(
        'a.get("type") == "compaction"\nrole in ("user", "x")\nc == "user"\nb["type"] == "hello"\n'
        'e.type == "text"\nmatch d.get("type"):\n    case "toolCall": pass\n    case "other": pass'
    )
    assert comparisons(tree) == [1, 2, 7]


def test_few_kind_comparisons_outside_session() -> None:
    found = outside_session()
    total = sum(len(v) for v in found.values())
    assert total <= BUDGET, "\n".join(f"{p}: {v}" for p, v in found.items())
