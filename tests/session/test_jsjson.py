"""JavaScript JSON semantics that pi's files and counts depend on (pi-spec §2.1, §5.2)."""

from __future__ import annotations

import math

import pytest

from desktop_app.session.jsjson import (
    UNDEFINED,
    JSONParseError,
    js_number,
    js_parse,
    js_stringify,
    js_trim,
    utf16_len,
)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "1"), (1e21, "1e+21"), (1e-7, "1e-7"), (1.5e-7, "1.5e-7"), (-0.0, "0"), (0.1, "0.1"),
        (12345678901234567890, "12345678901234567000"), (1e16, "10000000000000000"), (1e-6, "0.000001"),
        (0.00039183999999999996, "0.00039183999999999996"), (123e-20, "1.23e-18"), (-2.5, "-2.5"),
        (5e-324, "5e-324"), (1.7976931348623157e308, "1.7976931348623157e+308"), (2**53, "9007199254740992"),
        (float("nan"), "null"), (float("inf"), "null"), (100, "100"),
    ],
)
def test_numbers_print_as_javascript(value: float, text: str) -> None:
    assert js_number(value) == text


def test_stringify_orders_integer_like_keys_first_and_escapes_lone_surrogates() -> None:
    value = {"b": 1, "10": 2, "2": 3, "01": 4, "a": "x\ud800y\u2028é/"}
    assert js_stringify(value) == '{"2":3,"10":2,"b":1,"01":4,"a":"x\\ud800y\u2028é/"}'
    assert js_stringify([1.0, None, True, "\x01\n"]) == '[1,null,true,"\\u0001\\n"]'


def test_stringify_omits_undefined_keys_and_writes_undefined_elements_as_null() -> None:
    """``JSON.stringify({a: undefined, b: [undefined, 1], c: []})``; tuples are arrays too."""
    value = {"a": UNDEFINED, "b": [UNDEFINED, 1], "c": [], "d": ({"e": UNDEFINED},), "f": [[UNDEFINED]]}
    assert js_stringify(value) == '{"b":[null,1],"c":[],"d":[{}],"f":[[null]]}'
    assert js_stringify([UNDEFINED]) == "[null]"
    assert js_stringify(UNDEFINED) == "undefined"


def test_parse_rejects_nan_and_rounds_big_integers_like_javascript() -> None:
    with pytest.raises(JSONParseError):
        js_parse('{"a":NaN}')
    with pytest.raises(JSONParseError):
        js_parse("Infinity")
    big = js_parse("12345678901234567890")
    assert isinstance(big, float) and big == 12345678901234567168
    assert js_parse('{"a":1,"a":2}') == {"a": 2}
    assert math.isclose(js_parse("1e-7"), 1e-7)


def test_utf16_length_and_trim() -> None:
    assert utf16_len("a😀") == 3
    assert utf16_len("🇩🇪") == 4
    assert utf16_len("é") == 1
    assert js_trim("\ufeff  x \u3000\n") == "x"


def test_js_same_agrees_with_comparing_js_stringify() -> None:
    """orjson answers only when its bytes agree; JS-equal values it writes differently, and values it
    refuses, fall back to the exact comparison."""
    from desktop_app.session.jsjson import UNDEFINED, js_same

    pairs = [
        ({"a": 1, "b": [True, None]}, {"a": 1, "b": [True, None]}),
        ({"a": 1}, {"a": 1.0}),  # JS prints both as 1
        ({"b": 1, "2": 0}, {"2": 0, "b": 1}),  # JS lists integer-like keys first
        ({"a": 2**70}, {"a": float(2**70)}),  # orjson refuses the integer
        ({"a": "\ud800"}, {"a": "\ud800"}),  # a lone surrogate
        ({"a": UNDEFINED, "b": 1}, {"b": 1}),  # undefined is left out
        ({"a": True}, {"a": 1}),
        ({"a": 1}, {"a": 2}),
        ([1, 2], [2, 1]),
    ]
    for a, b in pairs:
        assert js_same(a, b) is (js_stringify(a) == js_stringify(b)), (a, b)
    assert [js_same(a, b) for a, b in pairs] == [True, True, True, True, True, True, False, False, False]
