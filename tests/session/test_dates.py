"""``Date.parse`` as Node reads the timestamps pi sorts children by (pi-spec §3.5)."""

from __future__ import annotations

import pytest

from desktop_app.session.entries import iso_from_ms, parse_date_ms


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
