"""Resolve conformance documents (pi's expected files and Arbor's inspect output) for comparison.

Both sides store messages once in ``message_table`` and refer to them by (run-length encoded)
index; a table item ``{"$entry": k}`` is ``entries[k].message``. Comparing resolved values makes the
test independent of table order, as the corpus README asks.
"""

from __future__ import annotations

import math
from typing import Any

import orjson

from desktop_app.session.jsjson import js_parse


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


class Resolved:
    """One document with message refs resolved to message objects."""

    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc
        entries = doc.get("entries", [])
        self.table = [
            entries[item["$entry"]]["message"] if isinstance(item, dict) and "$entry" in item else item
            for item in doc.get("message_table", [])
        ]

    def messages(self, refs: list[Any]) -> list[Any]:
        return [self.table[i] for i in unrle(refs)]

    def section(self, name: str) -> Any:
        doc = self.doc
        if name not in doc:
            return "<missing>"
        value = doc[name]
        if name == "message_tokens":
            # token count per distinct message, keyed by the message itself
            from desktop_app.session.jsjson import js_stringify

            pairs = zip(self.table, value, strict=True)
            return sorted({(js_stringify(normalise(m)), js_stringify(t)) for m, t in pairs})  # t may be {"error"}
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


def load_expected(text: str) -> dict[str, Any]:
    """Parse an expected file with JavaScript number semantics (as pi wrote it)."""
    return js_parse(text)  # type: ignore[no-any-return]
