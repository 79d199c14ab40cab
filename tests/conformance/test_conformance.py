"""Arbor's engine against pi 0.73.1's own answers for every corpus case (conformance/README.md).

Run with profile 0.73.1 (the default profile is today's pi, 1.6.0: tests/conformance/test_conformance16.py).

Each case is run once through ``arbor inspect``'s document builder (``--sequential-ids``, as pi's
harness) and every section is compared with pi's after resolving message refs. Where DESIGN.md §2
makes Arbor differ on purpose (a file without a valid header is never overwritten), the test
asserts Arbor's documented behaviour instead and says so.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest

from desktop_app.inspection import build_report, render
from desktop_app.session.profile import PI_0_73_1

from .resolve import Resolved, load_expected, resolved_pair

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "conformance"
# adversarial/: hand-made files that stress pi's JavaScript semantics (issue 13 item 10); kept apart so
# that the UI's per-case tests (tests/ui/conformance_cases.py) walk only the realistic corpus.
ADVERSARIAL = FIXTURES / "adversarial"
PATHS = {p.name.removesuffix(".expected.json"): p.parent for p in FIXTURES.glob("**/*.expected.json")}
CASES = sorted(PATHS)

SESSION_SECTIONS = [
    "parse",
    "open",
    "entries",
    "entry_message",
    "tree",
    "labels",
    "contexts",
    "context_special",
    "branches",
    "leaves",
]
COMPACTION_SECTIONS = ["message_tokens", "entry_file_ops", "leaf_stats", "compaction", "branch_summary", "serialize"]


def test_corpus_is_complete() -> None:
    assert len(CASES) == 74  # cases/ and real/ (60) + adversarial/ (14: F01-F08, F09a-c, F10-F12)
    assert sum(1 for c in CASES if PATHS[c] == ADVERSARIAL) == 14
    assert all((PATHS[c] / f"{c}.jsonl").exists() for c in CASES)


@functools.cache
def _pair(case: str) -> tuple[Resolved, Resolved]:
    expected = load_expected((PATHS[case] / f"{case}.expected.json").read_text(encoding="utf-8"))
    actual = build_report(PATHS[case] / f"{case}.jsonl", sequential_ids_=True, profile=PI_0_73_1)
    return resolved_pair(expected, actual)


def _regenerated_header(expected: Resolved) -> bool:
    return any(n["what"] == "new session header" for n in expected.doc.get("nondeterministic", []))


def _compare_open(case: str, expected: Any, actual: Any, regenerated: bool) -> None:
    if not regenerated:
        assert actual == expected
        return
    # pi overwrote this header-less file with a new header; Arbor never overwrites it (DESIGN.md §2).
    assert actual["rewrote_file"] is False and "file_after" not in actual
    assert actual["header_regenerated"] is True
    header = actual["header"]
    assert list(header) == list(expected["header"]) == ["type", "version", "id", "timestamp", "cwd"]
    assert header["type"] == "session" and header["version"] == 3
    assert isinstance(header["id"], str) and header["id"][14] == "7"  # a UUID v7, as pi 0.73.1
    assert actual["sessionId"] == header["id"] and actual["cwd"] == header["cwd"]
    for key in ("leafId", "sessionName", "entry_count"):
        assert actual[key] == expected[key], key


@pytest.mark.parametrize("case", CASES)
def test_every_section_matches_pi(case: str) -> None:
    """Every section of the case, each compared on its own; a failure names every section that differs
    (one test per case, not per section: 2,450 items cost more in pytest's own overhead than in comparing)."""
    expected, actual = _pair(case)
    assert_sections_match(case, expected, actual)


def assert_sections_match(case: str, expected: Resolved, actual: Resolved) -> None:
    """:func:`compare_section` for every section, reporting all that differ."""
    differ: list[str] = []
    for section in SESSION_SECTIONS + COMPACTION_SECTIONS:
        try:
            compare_section(case, section, expected, actual)
        except AssertionError as exc:
            differ.append(f"{section}: {str(exc)[:2000]}")
    assert not differ, f"{case}: {len(differ)} section(s) differ from pi's answers\n" + "\n".join(differ)


def compare_section(case: str, section: str, expected: Resolved, actual: Resolved) -> None:
    """Assert that one section of Arbor's document is pi's (or Arbor's documented difference)."""
    if "error" in expected.doc["open"] and section not in ("parse", "open"):
        assert section not in actual.doc  # pi stops after a failed open; so does the report
        return
    want, got = expected.section(section), actual.section(section)
    if section == "open":
        _compare_open(case, want, got, _regenerated_header(expected))
    elif section == "parse" and _regenerated_header(expected):
        # Same parse; `same_as_open` differs only because the header pi invented is not Arbor's.
        assert {k: v for k, v in got.items() if k != "same_as_open"} == {
            k: v for k, v in want.items() if k != "same_as_open"
        }
    else:
        assert got == want


@pytest.mark.parametrize("case", sorted(c for c in CASES if PATHS[c] == ADVERSARIAL))
def test_rendered_document_is_valid_json(case: str) -> None:
    """Odd ids (numbers, booleans, missing) must not make ``arbor inspect`` print invalid JSON."""
    text = render(build_report(PATHS[case] / f"{case}.jsonl", sequential_ids_=True, profile=PI_0_73_1))
    assert json.loads(text)["case"] == case
