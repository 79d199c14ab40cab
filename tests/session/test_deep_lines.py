"""Lines nested thousands of levels deep (issue 23 item 4).

Arbor reads a line nested up to ``MAX_NESTING`` (1,024) levels on every path: opening (orjson),
following appends and ``arbor inspect``'s parse (Python's parser, which alone stops near 1,000 levels,
earlier on a deep stack). A deeper line is a malformed line like any other: left out and reported with
its number by the manager, ``arbor inspect`` (``malformed_lines``) and the window (which lists the
manager's report). pi 1.6.0 and 0.73.1 keep such a line (``JSON.parse`` has no limit; their
``JSON.stringify`` overflows near 4,500 levels): a deliberate difference, in the README.
A 1,024-level file against pi's own answers: tests/fixtures/odd/parse/deep-1024-levels.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from desktop_app.inspection import build_report, render
from desktop_app.session import SessionManager
from desktop_app.session.entries import MAX_NESTING, nesting_depth, parse_session_lines, parse_session_text
from desktop_app.session.profile import PI_0_73_1, PI_1_6_0

T = TypeVar("T")
HEADER = '{"type":"session","version":3,"id":"s","timestamp":"2025-06-01T10:00:00.000Z","cwd":"/p"}'


def _entry(n: int, parent: str | None, details: str = "null") -> str:
    parent_json = "null" if parent is None else f'"{parent}"'
    return (
        f'{{"type":"custom_message","customType":"c","content":"m{n}","display":true,"details":{details},'
        f'"id":"e{n}","parentId":{parent_json},"timestamp":"2025-06-01T10:00:0{n}.000Z"}}'
    )


def _nested(levels: int) -> str:
    """``details`` that make the whole line nest ``levels`` deep (the entry's own object is one)."""
    return "[" * (levels - 1) + "]" * (levels - 1)


def _file(tmp_path: Path, levels: int) -> Path:
    """Eight lines; line 6 nests ``levels`` deep and is the parent of lines 7 and 8."""
    lines = [HEADER, _entry(1, None), _entry(2, "e1"), _entry(3, "e2"), _entry(4, "e3"),
             _entry(5, "e4", _nested(levels)), _entry(6, "e5"), _entry(7, "e6")]
    path = tmp_path / f"deep{levels}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _on_a_deep_stack(frames: int, call: Callable[[], T]) -> T:
    """``call()`` with ``frames`` more Python frames below it (the window calls from deep in Qt)."""
    return call() if frames == 0 else _on_a_deep_stack(frames - 1, call)


@pytest.mark.parametrize("levels", [MAX_NESTING + 1, 5_000, 100_000])
def test_a_line_nested_too_deep_is_reported_with_its_number(tmp_path: Path, levels: int) -> None:
    path = _file(tmp_path, levels)
    manager = SessionManager.open(path, fsync=False)
    assert manager.report.malformed_lines == [6]
    assert [e["id"] for e in manager.index.entries] == ["e1", "e2", "e3", "e4", "e6", "e7"]
    for profile in (PI_0_73_1, PI_1_6_0):
        doc = build_report(path, sequential_ids_=True, profile=profile)
        assert doc["malformed_lines"] == [6] and doc["parse"]["count"] == 7
        assert json.loads(render(doc))["malformed_lines"] == [6]


def test_a_line_nested_too_deep_is_reported_when_another_program_appends_it(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(HEADER + "\n" + _entry(1, None) + "\n", encoding="utf-8")
    manager = SessionManager.open(path, fsync=False)
    with path.open("a", encoding="utf-8") as fh:
        fh.write(_entry(2, "e1", _nested(100_000)) + "\n" + _entry(3, "e1") + "\n")
    assert [e["id"] for e in manager.poll_external_changes()] == ["e3"]
    assert manager.report.malformed_lines == [3]


@pytest.mark.parametrize("frames", [0, 800])
def test_lines_up_to_the_limit_are_read_on_every_path(tmp_path: Path, frames: int) -> None:
    """Opening, following and the report's parse agree, however deep the stack they are called on."""
    limit = sys.getrecursionlimit()
    path = _file(tmp_path, MAX_NESTING)
    text = path.read_text(encoding="utf-8")
    deep_line = text.splitlines()[5]
    assert nesting_depth(deep_line) == MAX_NESTING

    manager = _on_a_deep_stack(frames, lambda: SessionManager.open(path, fsync=False))
    assert manager.report.malformed_lines == [] and len(manager.index.entries) == 7
    parsed = _on_a_deep_stack(frames, lambda: parse_session_text(text))  # str lines: Python's parser
    assert parsed.malformed == [] and len(parsed.objects) == 8
    with_long_integer = deep_line.replace('"m5"', "12345678901234567")  # not for orjson: Python's parser
    from_bytes = _on_a_deep_stack(frames, lambda: parse_session_lines([with_long_integer.encode()]))
    assert from_bytes.malformed == [] and from_bytes.objects[0]["content"] == 12345678901234568.0

    too_deep = _file(tmp_path, MAX_NESTING + 1).read_text(encoding="utf-8")
    assert _on_a_deep_stack(frames, lambda: parse_session_text(too_deep)).malformed == [6]
    assert sys.getrecursionlimit() == limit  # the limit raised for a deep line is always put back


def test_nothing_recurses_out_on_an_entry_at_the_limit(tmp_path: Path) -> None:
    """Serialization, token estimates, contexts, compaction and branch summaries of a 1,024-level entry
    give the same document called from a shallow or a deep stack (no RecursionError swallowed)."""
    path = _file(tmp_path, MAX_NESTING)
    for profile in (PI_0_73_1, PI_1_6_0):
        shallow = render(build_report(path, sequential_ids_=True, profile=profile))
        deep: Any = _on_a_deep_stack(800, lambda p=profile: render(build_report(path, sequential_ids_=True, profile=p)))
        assert deep == shallow and '"error"' not in shallow
        assert "[" * (MAX_NESTING - 1) in shallow  # written back whole
