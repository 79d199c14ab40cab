"""Arbor's engine against pi 1.6.0's own answers (tests/fixtures/conformance16, from shared/conformance16).

``cases/`` are files pi 1.6.0 wrote itself (system messages, context edits, usage entries, compaction
checkpoints); ``base/`` are the 0.73.1 corpus files both versions load, with 1.6.0's answers. Every
section ``arbor inspect`` prints is compared after resolving message refs, with profile 1.6.0.
``base-loading/`` holds the four files where pi 1.6.0's stricter loading differs; Arbor keeps its
lenient loading there on purpose (README, deliberate differences), which the tests assert instead.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from desktop_app.inspection import build_report
from desktop_app.session.profile import PI_1_6_0

from .resolve import Resolved, load_expected, normalise, resolved_pair
from .test_conformance import COMPACTION_SECTIONS, SESSION_SECTIONS, assert_sections_match

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "conformance16"
PATHS = {
    p.name.removesuffix(".expected.json"): p.parent
    for folder in ("cases", "base")
    for p in (FIXTURES / folder).glob("*.expected.json")
}
CASES = sorted(PATHS)
LOADING = FIXTURES / "base-loading"


def test_corpus_is_complete() -> None:
    assert sum(1 for c in CASES if PATHS[c].name == "cases") == 20
    assert sum(1 for c in CASES if PATHS[c].name == "base") == 56
    assert len(list(LOADING.glob("*.expected.json"))) == 4
    assert all((PATHS[c] / f"{c}.jsonl").exists() for c in CASES)


@functools.cache
def _pair(case: str) -> tuple[Resolved, Resolved]:
    expected = load_expected((PATHS[case] / f"{case}.expected.json").read_text(encoding="utf-8"))
    actual = build_report(PATHS[case] / f"{case}.jsonl", sequential_ids_=True, profile=PI_1_6_0)
    return resolved_pair(expected, actual)


@pytest.mark.parametrize("case", CASES)
def test_every_section_matches_pi_1_6_0(case: str) -> None:
    """Every section of the case, each compared on its own; a failure names every section that differs
    (one test per case, not per section: 2,450 items cost more in pytest's own overhead than in comparing)."""
    expected, actual = _pair(case)
    assert_sections_match(case, expected, actual)


def _loading_pair(case: str) -> tuple[Resolved, Resolved]:
    expected = load_expected((LOADING / f"{case}.expected.json").read_text(encoding="utf-8"))
    actual = build_report(LOADING / f"{case}.jsonl", sequential_ids_=True, profile=PI_1_6_0)
    return resolved_pair(expected, actual)


@pytest.mark.parametrize("section", SESSION_SECTIONS + COMPACTION_SECTIONS)
def test_a_null_line_is_skipped_as_pi_1_6_0_skips_it(section: str) -> None:
    expected, actual = _loading_pair("edge-null-line")
    assert actual.section(section) == expected.section(section)


@pytest.mark.parametrize("section", SESSION_SECTIONS + COMPACTION_SECTIONS)
def test_a_missing_final_newline_is_not_repaired_on_open(section: str) -> None:
    """pi 1.6.0 appends the newline when it opens the file; Arbor never writes on open (README)."""
    expected, actual = _loading_pair("malformed-lines")
    want, got = expected.section(section), actual.section(section)
    if section == "open":
        assert want.pop("rewrote_file") is True and want.pop("file_after")["bytes"] > 0
        assert got.pop("rewrote_file") is False and "file_after" not in got
    assert got == want


@pytest.mark.parametrize("case", ["edge-bom-crlf", "edge-no-header"])
def test_files_pi_1_6_0_refuses_still_open_leniently(case: str) -> None:
    """pi 1.6.0 throws on a BOM header and on a non-empty file without a header; Arbor opens the first
    and shows the second read-only (README, deliberate differences), giving pi 0.73.1's answers for
    everything both versions agree on."""
    expected, actual = _loading_pair(case)
    assert expected.doc["open"]["error"].startswith("Error: Session file is not a valid pi session:")
    assert "error" not in actual.doc["open"] and actual.doc["open"]["rewrote_file"] is False
    old_root = FIXTURES.parent / "conformance"
    old = Resolved(normalise(load_expected((old_root / f"{case}.expected.json").read_text(encoding="utf-8"))))
    assert actual.doc["open"]["header_regenerated"] is (case == "edge-no-header")
    for section in ("entries", "entry_message", "tree", "labels", "contexts", "branches", "leaves"):
        assert actual.section(section) == old.section(section), section
