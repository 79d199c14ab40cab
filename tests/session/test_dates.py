"""``Date.parse`` as Node reads the timestamps pi sorts children by (pi-spec §3.5)."""

from __future__ import annotations

import pytest

from desktop_app.session.entries import entry_time_ms, iso_from_ms, js_date_ms, parse_date_ms


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("2025-03-01T10:00:01.000Z", 1740823201000),
        ("2025-03-01T12:00:01+02:00", 1740823201000),
        ("2025-03-01T10:00:01Z", 1740823201000),
        ("2025-03-01T10:00:01", 1740823201000),  # no offset = local time, UTC here as in pi's harness
        ("2025-03-01", 1740787200000),
        ("2025-02-31", 1740960000000),  # V8 lets the day overflow into March
        ("2025-03-01 10:00:01Z", 1740823201000),
        ("2025-03-01T10:00:01.5Z", 1740823201500),
    ],
)
def test_parse_like_node(text: str, ms: int) -> None:
    assert parse_date_ms(text) == ms


@pytest.mark.parametrize("text", ["", "yesterday", "2025-13-01", "2025-03-01T25:00Z", None, 5])
def test_invalid_is_nan(text: object) -> None:
    assert parse_date_ms(text) is None


def test_iso_round_trip() -> None:
    assert iso_from_ms(1740823201123) == "2025-03-01T10:00:01.123Z"
    assert parse_date_ms(iso_from_ms(1740823201123)) == 1740823201123


# ``new Date(value).getTime()`` as Node 20 computes it (recorded with node; None = NaN): numbers, null,
# booleans, six-digit and year-0 dates, legacy toString/toUTCString forms, offsets without ":",
# lowercase "z", padded strings (NaN), TimeClip limits.
NODE_DATES = [[1748772010000, 1748772010000], [None, 0], [True, 1], [False, 0], ["-000001-01-01T00:00:00Z", -62198755200000], ["+275760-09-13T00:00:00.000Z", 8640000000000000], ["+275760-09-13T00:00:00.001Z", None], ["Sun Jun 01 2025 10:00:03 GMT+0000", 1748772003000], ["2025-06-01T12:00:01.000+0200", 1748772001000], ["2025-06-01T10:00:02.000z", 1748772002000], [" 2025-06-01T10:00:02.000Z ", None], ["0000-01-01T00:00:00.000Z", -62167219200000], ["0000-03-01T00:00:00.000Z", -62162035200000], ["+002025-06-01T10:00:00Z", 1748772000000], ["2025-06-01T10:00:00.123456Z", 1748772000123], ["1748772010000", None], [{}, None], [1.5, 1], [-1.5, -1], [8640000000000000.0, 8640000000000000], [8640000000000001, None], ["2025-06-01T10:00", 1748772000000], ["\u00a02025-06-01T10:00:00Z", None], ["\u001c2025-06-01T10:00:00Z", None], ["2025-06-01T10:00:00+02", None], ["2025-06-01T10:00:00Z ", None], ["2025-06-01 10:00:00", 1748772000000], ["2025-06-01T10:00:00.000+02:00", 1748764800000], ["Sun, 01 Jun 2025 10:00:03 GMT", 1748772003000], ["Sun Jun 01 2025 10:00:03 GMT+0200 (CEST)", 1748764803000], ["Jun 01 2025 10:00:03 GMT", 1748772003000], ["Sun Jun 01 2025", 1748736000000], ["2025-06-01T24:00:00Z", 1748822400000], ["2025-06-31T10:00:00Z", 1751364000000], ["2025-02-30", 1740873600000], ["2025-06-01t10:00:00Z", 1748772000000], ["2025-06-01T10:00Z", 1748772000000], ["2025-06-01T10Z", None], ["2025", 1735689600000], ["2025-06", 1748736000000], ["-000000-01-01T00:00:00Z", None], ["2025-06-01T10:00:00,5Z", None], ["10000-01-01T00:00:00Z", None], ["2025-06-01T10:00:00.000+24:00", None], ["2025-06-01T10:00:00.000+23:59", 1748685660000], ["2025-06-01T10:60:00Z", None], ["-271821-04-20T00:00:00Z", -8640000000000000], ["-271821-04-19T23:59:59.999Z", None], ["1969-12-31T23:59:59.999Z", -1], ["1900-02-29", -2203891200000], ["2000-02-29T00:00:00Z", 951782400000], ["", None], ["x", None]]


@pytest.mark.parametrize(("value", "ms"), NODE_DATES)
def test_new_date_like_node(value: object, ms: int | None) -> None:
    assert js_date_ms(value) == ms


def test_absent_timestamp_is_nan_but_null_is_zero() -> None:
    assert entry_time_ms({}) is None and entry_time_ms({"timestamp": None}) == 0
