"""Hand-made odd files against both pis' recorded answers (tests/fixtures/odd/<topic>/).

Every ``NAME.jsonl`` under ``tests/fixtures/odd/`` comes with pi 0.73.1's answers in
``NAME.pi073.expected.json`` and pi 1.6.0's in ``NAME.pi16.expected.json``, recorded with the oracles
(``cd /work/shared/oracle && TZ=UTC node expect.mjs FILE.jsonl``, and the same in ``oracle16``). Each
section ``arbor inspect`` prints is compared as in test_conformance.py / test_conformance16.py, with the
profile of the pi that wrote the answer. Arbor differs from pi 1.6.0 on purpose only where the README
says loading stays lenient, and then it is that documented behaviour which is asserted:

* pi 1.6.0 writes a missing final newline when it opens a file; Arbor never writes on open;
* pi 1.6.0 refuses a file whose header line does not parse on its own (a BOM, other JS whitespace
  before it) or a non-empty file without a header; Arbor opens them as pi 0.73.1 does, so the sections
  both versions agree on are compared with pi 0.73.1's answers.

Add a case by dropping the three files into a topic folder (a ``make.py`` there may write the ``.jsonl``).
"""

from __future__ import annotations

import functools
import hashlib
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from desktop_app.inspection import build_report
from desktop_app.session.profile import PI_0_73_1, PI_1_6_0, PiProfile
from tests.cli_runs import arbor_in_process

from .resolve import Resolved, load_expected, normalise
from .test_conformance import COMPACTION_SECTIONS, SESSION_SECTIONS, compare_section

ODD = Path(__file__).resolve().parent.parent / "fixtures" / "odd"
PROFILES: dict[str, PiProfile] = {"pi073": PI_0_73_1, "pi16": PI_1_6_0}
CASES = sorted(str(p.relative_to(ODD)).removesuffix(".jsonl") for p in ODD.glob("**/*.jsonl"))
REFUSED_BY_1_6 = "Error: Session file is not a valid pi session:"
# What both versions answer alike for a file both load (the reader, the tree, the context): compared with
# pi 0.73.1's answers where pi 1.6.0 refused the file and Arbor did not.
SHARED_SECTIONS = ("entries", "entry_message", "tree", "labels", "contexts", "context_special", "branches", "leaves")


def _expected_path(case: str, pi: str) -> Path:
    return ODD / f"{case}.{pi}.expected.json"


def test_every_odd_file_has_both_answers() -> None:
    assert CASES, "no odd files found"
    for case in CASES:
        for pi in PROFILES:
            assert _expected_path(case, pi).is_file(), f"{case}: {pi} answers missing"
    answers = {str(p.relative_to(ODD)).rsplit(".", 3)[0] for p in ODD.glob("**/*.expected.json")}
    assert answers == set(CASES), "answers without their .jsonl"


@contextmanager
def _room_for_deep_values() -> Iterator[None]:
    """Python's recursion limit raised while the test reads, walks and compares answers: some files
    nest values as deeply as Arbor reads (1,024 levels). Arbor's document is built without it."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


@functools.cache
def _expected(case: str, pi: str) -> Resolved:
    with _room_for_deep_values():
        return Resolved(normalise(load_expected(_expected_path(case, pi).read_text(encoding="utf-8"))))


@functools.cache
def _actual(case: str, pi: str) -> Resolved:
    doc = build_report(ODD / f"{case}.jsonl", sequential_ids_=True, profile=PROFILES[pi])
    with _room_for_deep_values():
        return Resolved(normalise(doc))


def _refused_by_1_6(expected: Resolved, actual: Resolved) -> bool:
    error = expected.doc["open"].get("error")
    return isinstance(error, str) and error.startswith(REFUSED_BY_1_6) and "error" not in actual.doc["open"]


@pytest.mark.parametrize("pi", sorted(PROFILES))
@pytest.mark.parametrize("case", CASES)
def test_odd_file_matches_pi(case: str, pi: str) -> None:
    """Every section, one test per file and pi (a test per section was 3,600 tests, most of their time
    pytest's own); a failure names each section that differs and how."""
    _actual(case, pi)  # built (and cached) at Python's own recursion limit, as the app runs
    differs: list[str] = []
    with _room_for_deep_values():
        _actual(case, pi).share_messages(_expected(case, pi))
        for section in SESSION_SECTIONS + COMPACTION_SECTIONS:
            try:
                _compare(case, pi, section)
            except AssertionError as exc:
                differs.append(f"{section}: {str(exc)[:600]}")
    assert not differs, "\n".join(differs)


def _compare(case: str, pi: str, section: str) -> None:
    expected, actual = _expected(case, pi), _actual(case, pi)
    if pi == "pi16" and _refused_by_1_6(expected, actual):
        _compare_refused(case, section, expected, actual)
        return
    if pi == "pi16" and section == "open" and _repaired_newline(case, expected):
        _compare_unrepaired_open(expected, actual)
        return
    compare_section(case, section, expected, actual)


def _repaired_newline(case: str, expected: Resolved) -> bool:
    """Did pi 1.6.0's open only append the missing final ``\n`` (the file one byte longer, nothing else)?"""
    source = (ODD / f"{case}.jsonl").read_bytes()
    opened = expected.doc["open"]
    after = opened.get("file_after")
    return (
        opened.get("rewrote_file") is True
        and bool(source)
        and not source.endswith(b"\n")
        and isinstance(after, dict)
        and after.get("bytes") == len(source) + 1
        and after.get("sha256") == hashlib.sha256(source + b"\n").hexdigest()
    )


def _compare_unrepaired_open(expected: Resolved, actual: Resolved) -> None:
    """pi 1.6.0 appended the missing final newline on open; Arbor never writes on open (README)."""
    want, got = dict(expected.section("open")), dict(actual.section("open"))
    del want["file_after"], want["rewrote_file"]
    assert got.pop("rewrote_file") is False and "file_after" not in got
    assert got == want


def _compare_refused(case: str, section: str, expected: Resolved, actual: Resolved) -> None:
    """pi 1.6.0 refused the file; Arbor opens it leniently with pi 0.73.1's reading (README)."""
    old = _expected(case, "pi073")
    if section == "parse":  # parseSessionEntries still trims in 1.6.0: pi 1.6.0's own parse answer
        want = dict(expected.section("parse"))
        got = {k: v for k, v in actual.section("parse").items() if k not in ("same_as_open", "entries")}
        assert want.pop("entries") == actual.section("parse").get("entries", [actual.doc["open"]["header"], *actual.doc["entries"]])
        assert got == want
    elif section == "open":
        assert actual.doc["open"]["rewrote_file"] is False
        compare_section(case, section, old, actual)
    elif section in SHARED_SECTIONS:
        compare_section(case, section, old, actual)
    else:  # estimates and compaction are profile answers pi 1.6.0 never gave for this file
        assert section in actual.doc and section not in expected.doc


@pytest.mark.parametrize("pi", sorted(PROFILES))
def test_arbor_inspect_pi_option_gives_that_pis_answers(pi: str) -> None:
    """The command line, end to end: ``arbor inspect --pi VERSION`` on a file the two pis read apart."""
    case = "parse/ws-last-line-nbsp-ls"  # 1.6.0 drops the last line, 0.73.1 trims its end away
    result = arbor_in_process("inspect", "--sequential-ids", "--pi", PROFILES[pi].version, str(ODD / f"{case}.jsonl"))
    assert result.returncode == 0, result.stderr
    actual, expected = Resolved(normalise(load_expected(result.stdout))), _expected(case, pi)
    for section in ("open", "entries", "contexts", "leaves", "message_tokens"):
        compare_section(case, section, expected, actual)
    assert actual.doc["malformed_lines"] == ([5] if pi == "pi16" else [])
