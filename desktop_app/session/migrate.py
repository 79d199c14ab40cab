"""Migrations v1 → v2 → v3 (pi-spec §2.6), applied in place to freshly parsed objects.

The functions mutate the parsed dicts exactly as pi mutates its objects, so key order after a
migration (``version`` last in a migrated header, ``id``/``parentId`` appended to v1 entries) and
therefore the rewritten file are byte-identical to pi's.
"""

from __future__ import annotations

from typing import Any

from .entries import CURRENT_SESSION_VERSION, new_entry_id


def header_version(objects: list[Any]) -> int | float | None:
    """The raw ``version`` of the first header among ``objects`` (``None`` when absent)."""
    for obj in objects:
        if isinstance(obj, dict) and obj.get("type") == "session":
            version = obj.get("version")
            return version if isinstance(version, (int, float)) and not isinstance(version, bool) else None
    return None


def needs_migration(objects: list[Any]) -> bool:
    version = header_version(objects)
    return (1 if version is None else version) < CURRENT_SESSION_VERSION


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
        if obj.get("type") == "compaction" and "firstKeptEntryIndex" in obj:
            index = obj["firstKeptEntryIndex"]
            if isinstance(index, (int, float)) and not isinstance(index, bool):
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
    version = header_version(objects)
    effective = 1 if version is None else version
    if effective >= CURRENT_SESSION_VERSION:
        return False
    if effective < 2:
        _migrate_v1_to_v2(objects)
    _migrate_v2_to_v3(objects)
    return True
