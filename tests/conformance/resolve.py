"""Resolve conformance documents (pi's expected files and Arbor's inspect output) for comparison.

Both sides store messages once in ``message_table`` and refer to them by (run-length encoded)
index; a table item ``{"$entry": k}`` is ``entries[k].message``. Comparing resolved values makes the
test independent of table order, as the corpus README asks.
"""

from __future__ import annotations

import math
from typing import Any

import orjson

from desktop_app.session.jsjson import js_parse, js_stringify


def unrle(items: list[Any]) -> list[int]:
    out: list[int] = []
    for item in items:
        if isinstance(item, list):
            out.extend(range(item[0], item[1] + 1))
        else:
            out.append(item)
    return out


def normalise(value: Any) -> Any:
    """NaN → None (JSON null), recursively; JS writes NaN as null.

    orjson does exactly this in C (it writes NaN as null and keeps key order and number types); the
    Python walk is for what it refuses (integers past 64 bits, lone surrogates, non-string keys)."""
    try:
        return orjson.loads(orjson.dumps(value))
    except (TypeError, orjson.JSONEncodeError, orjson.JSONDecodeError):
        return _normalise(value)


def _normalise(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _normalise(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalise(v) for v in value]
    return value


def _exact_text(value: Any) -> bytes | None:
    """orjson's text of ``value``, or ``None`` where orjson refuses it. Two values with the same text
    are the same value, types and key order included: ``==``, :func:`normalise` and ``JSON.stringify``
    cannot tell them apart (a cheap test of sameness; different texts prove nothing)."""
    try:
        return orjson.dumps(value)
    except (TypeError, orjson.JSONEncodeError):
        return None


class TokenPairs:
    """The ``message_tokens`` section: the set of (message, token count) pairs, each pair as the texts
    ``JSON.stringify`` gives, so that table order and repeated messages do not matter.

    Two sections are equal when those sets are. Where both sides' pairs have the same exact texts
    (:func:`_exact_text`) the sets are equal without writing the JavaScript texts, which was most of a
    conformance test's time; otherwise the JavaScript texts decide (and are what a failure shows)."""

    def __init__(self, pairs: list[tuple[Any, Any]], exact: list[bytes | None]) -> None:
        self._pairs = pairs
        texts = [(m, _exact_text(t)) for m, (_, t) in zip(exact, pairs, strict=True)]
        self._exact = None if any(m is None or t is None for m, t in texts) else frozenset(texts)

    def js_texts(self) -> list[tuple[str, str]]:
        return sorted({(js_stringify(normalise(m)), js_stringify(t)) for m, t in self._pairs})  # t may be {"error"}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TokenPairs):
            return NotImplemented
        if self._exact is not None and self._exact == other._exact:
            return True
        return self.js_texts() == other.js_texts()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self.js_texts())


class Resolved:
    """One document with message refs resolved to message objects."""

    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc
        entries = doc.get("entries", [])
        self.table = [
            entries[item["$entry"]]["message"] if isinstance(item, dict) and "$entry" in item else item
            for item in doc.get("message_table", [])
        ]
        self._exact: list[bytes | None] | None = None

    def exact_texts(self) -> list[bytes | None]:
        """:func:`_exact_text` of each table message (computed once)."""
        if self._exact is None:
            self._exact = [_exact_text(m) for m in self.table]
        return self._exact

    def share_messages(self, other: Resolved) -> None:
        """Take ``other``'s object for each table message that is exactly the same value (same exact
        text). Nothing compares differently (the objects cannot be told apart), but comparing two
        sections' message lists then mostly meets the same objects, which ``==`` skips at once."""
        theirs = {text: m for text, m in zip(other.exact_texts(), other.table, strict=True) if text is not None}
        for k, text in enumerate(self.exact_texts()):
            if text is not None:
                self.table[k] = theirs.get(text, self.table[k])

    def messages(self, refs: list[Any]) -> list[Any]:
        return [self.table[i] for i in unrle(refs)]

    def section(self, name: str) -> Any:
        doc = self.doc
        if name not in doc:
            return "<missing>"
        value = doc[name]
        if name == "message_tokens":
            # token count per distinct message, keyed by the message itself
            return TokenPairs(list(zip(self.table, value, strict=True)), self.exact_texts())
        if name == "entry_message":
            return {k: self.table[v] for k, v in value.items()}
        if name in ("contexts", "context_special"):
            return {k: {**v, "messages": self.messages(v["messages"])} if "messages" in v else v for k, v in value.items()}
        if name == "branches":
            return {k: unrle(v) if isinstance(v, list) else v for k, v in value.items()}
        if name in ("compaction", "branch_summary") and not isinstance(value, list):
            return value  # the whole section failed: {"error": ...}
        if name == "compaction":
            out = []
            for item in value:
                item = dict(item)
                prepare = {}
                for k, p in item.get("prepare", {}).items():
                    if isinstance(p, dict) and "messagesToSummarize" in p:
                        p = {
                            **p,
                            "messagesToSummarize": self.messages(p["messagesToSummarize"]),
                            "turnPrefixMessages": self.messages(p["turnPrefixMessages"]),
                        }
                    prepare[k] = p
                if "prepare" in item:
                    item["prepare"] = prepare
                out.append(item)
            return out
        if name == "branch_summary":
            out = []
            for item in value:
                item = dict(item)
                if "prepared" in item:
                    item["prepared"] = {
                        k: ({**p, "messages": self.messages(p["messages"])} if isinstance(p, dict) and "messages" in p else p)
                        for k, p in item["prepared"].items()
                    }
                out.append(item)
            return out
        if name == "serialize":
            return {
                k: {**v, "llm_messages": self.messages(v["llm_messages"])} if "llm_messages" in v else v
                for k, v in value.items()
            }
        return value


def resolved_pair(expected: dict[str, Any], actual: dict[str, Any]) -> tuple[Resolved, Resolved]:
    """pi's document and Arbor's, normalised and resolved, the second sharing the first's message
    objects where they are the same value (:meth:`Resolved.share_messages`)."""
    want, got = Resolved(normalise(expected)), Resolved(normalise(actual))
    got.share_messages(want)
    return want, got


def load_expected(text: str) -> dict[str, Any]:
    """Parse an expected file with JavaScript number semantics (as pi wrote it)."""
    return js_parse(text)  # type: ignore[no-any-return]
