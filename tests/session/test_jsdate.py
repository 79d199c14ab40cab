"""V8's ``Date.parse`` on any string, legacy forms included (issue 23: pi orders siblings by it).

The answers were recorded with Node (``tests/fixtures/odd/dates/v8_date_parse.json``: the legacy forms
people write — ``2025/06/01``, ``June 1, 2025``, ``2025-06-01 10:00``, ``Sun Jun 01 2025``, with and
without zones, am/pm, parentheses, two-digit years, garbage — and 500 one-character mutations of them).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_app.session.entries import parse_date_ms
from desktop_app.session.jsdate import v8_date_parse

RECORDED = Path(__file__).resolve().parent.parent / "fixtures" / "odd" / "dates" / "v8_date_parse.json"
CASES: list[tuple[str, int | None]] = [tuple(c) for c in json.loads(RECORDED.read_text(encoding="utf-8"))["cases"]]


def test_every_recorded_string_parses_as_node() -> None:
    wrong = [(text, ms, v8_date_parse(text)) for text, ms in CASES if v8_date_parse(text) != ms]
    assert wrong == []
    assert sum(ms is not None for _, ms in CASES) > 150  # the table holds valid dates, not only NaN


def test_parse_date_ms_agrees_with_the_reader_and_node() -> None:
    """The fast path for pi's own format must not take strings it cannot read."""
    assert [text for text, ms in CASES if parse_date_ms(text) != ms] == []


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("2025/06/01", 1748736000000),  # local time = UTC
        ("June 1, 2025", 1748736000000),
        ("June 1", 991353600000),  # no year: V8 takes 2001
        ("2025-06-01 10:00", 1748772000000),
        ("Sun Jun 01 2025 10:00:00 GMT-0200", 1748779200000),
        ("6/1/2025 10:00 pm", 1748815200000),
        ("12/31/49", 2524521600000),  # two-digit years: 0-49 -> 20xx, 50-99 -> 19xx
        ("12/31/50", -599702400000),
        ("2025-06-01 10:00 EST", 1748790000000),
        ("Tuesday June 1 2025", 1748736000000),  # words before the first number are ignored
        ("June 1 2025 Tuesday", None),  # ... not after it
        ("1.6.2025", 1736121600000),  # "1." is not a time: month 1, day 6
    ],
)
def test_legacy_forms(text: str, ms: int | None) -> None:
    assert v8_date_parse(text) == ms
