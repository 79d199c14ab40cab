"""The comparison of documents still sees every difference after its shortcuts (issue 23).

``message_tokens`` is compared by exact texts first and by ``JSON.stringify`` texts only where those
differ; Arbor's table messages are replaced by pi's objects where they are exactly the same value. Both
made the corpora fast to compare; neither may let a difference through or invent one.
"""

from __future__ import annotations

import copy
from typing import Any

import orjson
import pytest

from desktop_app.inspection import build_report
from desktop_app.session.profile import PI_0_73_1

from .resolve import Resolved, TokenPairs, load_expected, normalise, resolved_pair
from .test_conformance import PATHS, assert_sections_match

CASE = "edge-compaction-refs"


def _tokens(pairs: list[tuple[Any, Any]]) -> TokenPairs:
    from .resolve import _exact_text

    return TokenPairs(pairs, [_exact_text(m) for m, _ in pairs])


def test_token_pairs_equal_as_javascript_texts() -> None:
    a = {"role": "user", "content": "x", "n": 1}
    same = [
        ([(a, 3), (a, 3)], [(a, 3)]),  # repeated messages count once
        ([(a, 3), ({"b": 1}, 2)], [({"b": 1}, 2), (a, 3)]),  # table order does not matter
        ([({"b": 1, "1": 2}, 1)], [({"1": 2, "b": 1}, 1)]),  # JS writes index keys first
        ([({"n": 1.0}, 1)], [({"n": 1}, 1.0)]),  # one number in JavaScript
        ([(a, {"error": "TypeError: x"})], [(dict(a), {"error": "TypeError: x"})]),
    ]
    for left, right in same:
        assert _tokens(left) == _tokens(right), (left, right)
    different = [
        ([(a, 3)], [(a, 4)]),
        ([(a, 3)], [({**a, "content": "y"}, 3)]),
        ([({"n": True}, 1)], [({"n": 1}, 1)]),  # true is not 1
        ([(a, 3)], [(a, 3), ({"b": 1}, 2)]),
        ([({"s": "\ud800"}, 1)], [({"s": "\ud801"}, 1)]),  # orjson refuses lone surrogates
    ]
    for left, right in different:
        assert _tokens(left) != _tokens(right), (left, right)
    assert "undefined" not in repr(_tokens([(a, 3)]))


@pytest.fixture(scope="module")
def docs() -> tuple[dict[str, Any], dict[str, Any]]:
    path = PATHS[CASE]
    expected = load_expected((path / f"{CASE}.expected.json").read_text(encoding="utf-8"))
    return expected, build_report(path / f"{CASE}.jsonl", sequential_ids_=True, profile=PI_0_73_1)


def test_shared_messages_are_only_the_same_values(docs: tuple[dict[str, Any], dict[str, Any]]) -> None:
    expected, actual = docs
    actual = copy.deepcopy(actual)
    table = actual["message_table"]
    odd = next(k for k, item in enumerate(table) if "$entry" not in item)
    table[odd] = {**table[odd], "timestamp": table[odd]["timestamp"] + 0.5}
    want, got = resolved_pair(expected, actual)
    own = Resolved(normalise(actual)).table
    shared = [k for k, m in enumerate(got.table) if any(m is n for n in want.table)]
    assert shared and odd not in shared
    assert all(orjson.dumps(got.table[k]) == orjson.dumps(own[k]) for k in shared)


@pytest.mark.parametrize(
    "change",
    ["token count", "message text", "number for boolean", "context message order"],
)
def test_a_changed_document_fails(docs: tuple[dict[str, Any], dict[str, Any]], change: str) -> None:
    expected, actual = docs
    assert_sections_match(CASE, *resolved_pair(expected, actual))
    actual = copy.deepcopy(actual)
    if change == "token count":
        actual["message_tokens"][0] += 1
    elif change == "message text":
        entry = next(e for e in actual["entries"] if e.get("type") == "message")
        entry["message"]["content"] = "changed"
    elif change == "number for boolean":
        entry = next(e for e in actual["entries"] if e.get("type") == "message" and "timestamp" in e["message"])
        entry["message"]["timestamp"] = True
    else:
        leaf = max(actual["contexts"], key=lambda k: len(str(actual["contexts"][k].get("messages"))))
        refs = actual["contexts"][leaf]["messages"]
        flat = [k for item in refs for k in (range(item[0], item[1] + 1) if isinstance(item, list) else [item])]
        assert len(flat) >= 2
        actual["contexts"][leaf]["messages"] = [flat[1], flat[0], *flat[2:]]
    with pytest.raises(AssertionError):
        assert_sections_match(CASE, *resolved_pair(expected, actual))
