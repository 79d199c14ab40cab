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


@pytest.mark.parametrize(
    ("text", "ms"),
    [  # recorded with Node 20.20.2, TZ=UTC: the edges of each step of the reader
        ("2025-06-01T10:00+2460", None),  # ISO zone +hhmm out of range
        ("2025-06-01T10:00+0530", 1748752200000),
        ("2025-06-01T10:00+05:", None),  # +hh: without minutes
        ("2025-06-01T10:00+05:6", None),
        ("2025-06-01T10:00+05:30", 1748752200000),
        ("2025-06-01T10:00+24:00", None),
        ("2025-06-01T24:00", 1748822400000),  # hour 24 only as 24:00[:00[.0]]
        ("2025-06-01T24:01", None),
        ("2025-06-01T24:00:00.000Z", 1748822400000),
        ("2025-06-01T24:00:00.001Z", None),
        ("2025-06-01T24:00:01", None),
        ("2025-06-01T10:00:00.Z", None),
        ("2025-06-01T10:00:00.123456789Z", 1748772000123),
        ("+002025-06-01", 1748736000000),
        ("-000000-01-01", 978307200000),  # year -0 is not ISO: the legacy reader goes on
        ("2025-13-01", None),
        ("2025-06-32", None),
        ("2025/06/01 10:20.x", None),  # seconds before a dot need milliseconds after it
        ("2025/06/01 10:20.5", None),
        ("1/1/2025 10:00:00:00:00", None),
        ("June 1, 2025 10:00 foo", None),
        ("foo2025 June 1", None),  # a word glued to the first number
        ("Jun 1 2025 10:00 pm", 1748815200000),
        ("Jun 1 2025 13:00 pm", None),
        ("1/2/3/4", None),
        ("1/1/2025 10:00 GMT+99999:00", 1375729200000),
        # V8 adds the offset's seconds in unsigned 32-bit arithmetic: a huge hour wraps around
        ("1/1/2025 10:00 GMT+999999999:00", 918323248000),
    ],
)
def test_the_readers_edges(text: str, ms: int | None) -> None:
    assert v8_date_parse(text) == ms
