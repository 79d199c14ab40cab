"""``arbor inspect`` on odd hand-made files against both pis' recorded answers (issue 23).

``tests/fixtures/odd/inspect/NAME.jsonl`` are small sessions with one odd thing each: content that is
``null``, missing or not a list (token estimates: 0.73.1 weighs such a user content 0, 1.6.0 throws),
a ``null`` bash output or summary (pi records the error in each value that touches it, not in whole
sections), timestamps in V8's legacy forms (sibling order), ids that are numbers, ``null``, ``""`` or
objects where the harness picks navigation pairs. ``NAME.pi073.expected.json`` and
``NAME.pi16.expected.json`` are pi 0.73.1's and pi 1.6.0's answers (``expect.mjs``, unedited). Every
section is compared, for both, by the shared runner (tests/conformance/test_odd_files.py); this module
keeps what the section comparison does not say: an error stays in the values that touch it.
"""

from __future__ import annotations

from pathlib import Path

from desktop_app.inspection import build_report
from desktop_app.session.profile import PI_0_73_1, PI_1_6_0, PiProfile

from .resolve import Resolved, load_expected, resolved_pair

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "odd" / "inspect"

PROFILES: dict[str, PiProfile] = {"pi073": PI_0_73_1, "pi16": PI_1_6_0}


def _pair(case: str, tag: str) -> tuple[Resolved, Resolved]:
    expected = load_expected((FIXTURES / f"{case}.{tag}.expected.json").read_text(encoding="utf-8"))
    actual = build_report(FIXTURES / f"{case}.jsonl", sequential_ids_=True, profile=PROFILES[tag])
    return resolved_pair(expected, actual)


def test_an_error_stays_in_the_values_that_touch_it() -> None:
    """A ``null`` bash output fails the values whose messages include it, and only those."""
    expected, actual = _pair("tok-bash-output-null", "pi16")
    stats = actual.section("leaf_stats")
    assert "error" not in stats and stats["x3"]["path_length"] == 7  # the side branch never meets it
    assert actual.section("serialize")["x3"]["length"] > 0
    targets = actual.section("compaction")
    assert [t["target"] for t in targets] == ["a5", "x3", "c1"]  # each target reported, none an error
    assert actual.section("leaf_stats") == expected.section("leaf_stats")
