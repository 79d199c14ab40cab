"""Migrations v1 → v2 → v3 (pi-spec §2.6), applied in place to freshly parsed objects.

The functions mutate the parsed dicts exactly as pi mutates its objects, so key order after a
migration (``version`` last in a migrated header, ``id``/``parentId`` appended to v1 entries) and
therefore the rewritten file are byte-identical to pi's.
"""

from __future__ import annotations

import math
from typing import Any

from .entries import CURRENT_SESSION_VERSION, new_entry_id
from .jsjson import js_string, js_trim


def header_version(objects: list[Any]) -> Any:
    """The raw ``version`` of the first header among ``objects`` (``None`` when absent or null)."""
    for obj in objects:
        if isinstance(obj, dict) and obj.get("type") == "session":
            return obj.get("version")
    return None


def _js_number(value: Any) -> float:
    """JavaScript's ``Number(value)`` for a JSON value, as ``<`` coerces it (NaN compares false)."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if value is None:
        return 0.0
    if isinstance(value, list):  # ToPrimitive joins the elements: [3] -> "3", [] -> "", [1, 2] -> "1,2"
        return _js_number(js_string(value))
    if not isinstance(value, str):
        return math.nan  # an object: "[object Object]"
    text = js_trim(value)
    if not text:
        return 0.0
    try:
        if text[:2].lower() in ("0x", "0o", "0b"):
            return float(int(text, 0))
        if text.lstrip("+-") == "Infinity":
            return -math.inf if text[0] == "-" else math.inf
        if not all(c in "0123456789+-.eE" for c in text):
            return math.nan  # Python's float() also takes "nan", "inf", "1_0"; JS does not
        return float(text)
    except ValueError:
        return math.nan


def _effective_version(objects: list[Any]) -> float:
    """``version ?? 1`` as a number: a string "2" counts as 2, a list [3] as 3, "abc" as NaN."""
    version = header_version(objects)
    return 1.0 if version is None else _js_number(version)


def needs_migration(objects: list[Any]) -> bool:
    return _effective_version(objects) < CURRENT_SESSION_VERSION  # NaN: never


def _migrate_v1_to_v2(objects: list[Any]) -> None:
    used: set[str] = set()
    previous: str | None = None
    for obj in objects:
        if not isinstance(obj, dict):
            continue
        if obj.get("type") == "session":
            obj["version"] = 2
            continue
        entry_id = new_entry_id(used)
        used.add(entry_id)
        obj["id"] = entry_id
        obj["parentId"] = previous
        previous = entry_id
        index = obj.get("firstKeptEntryIndex")
        if obj.get("type") == "compaction" and isinstance(index, (int, float)) and not isinstance(index, bool):
            # pi converts only a number (`typeof === "number"`); anything else stays as it is
            target = objects[int(index)] if float(index).is_integer() and 0 <= index < len(objects) else None
            if isinstance(target, dict) and target.get("type") != "session":
                target_id = target.get("id")
                if target_id is not None:
                    obj["firstKeptEntryId"] = target_id
                else:
                    obj.pop("firstKeptEntryId", None)
            del obj["firstKeptEntryIndex"]


def _migrate_v2_to_v3(objects: list[Any]) -> None:
    for obj in objects:
        if not isinstance(obj, dict):
            continue
        if obj.get("type") == "session":
            obj["version"] = 3
        elif obj.get("type") == "message":
            message = obj.get("message")
            if isinstance(message, dict) and message.get("role") == "hookMessage":
                message["role"] = "custom"


def migrate_objects(objects: list[Any]) -> bool:
    """Bring parsed file objects (header included) to v3 in place; True when anything changed."""
    effective = _effective_version(objects)
    if not effective < CURRENT_SESSION_VERSION:
        return False
    if effective < 2:
        _migrate_v1_to_v2(objects)
    _migrate_v2_to_v3(objects)
    return True
