"""Argument checking as pi does it before a tool runs: coerce like TypeBox ``Value.Convert``, then check.

pi converts what a model often gets wrong (``"2"`` for a number, ``"true"`` for a boolean) and refuses
the rest with ``Validation failed for tool "<name>":`` and one ``  - <path>: <message>`` line per
problem, followed by the received arguments as 2-space JSON. The session file keeps the original
arguments; only the tool sees the converted ones.

Paths of nested problems (``edits/0/newText``) follow TypeBox's instance paths without the leading
slash; pi-tools.md shows only top-level ones, so the nested form is inferred.
"""

from __future__ import annotations

import math
import re
from typing import Any

from desktop_app.session.jsjson import js_number, js_stringify

from .results import ToolError

__all__ = ["validate_arguments", "js_stringify_pretty", "Schema", "prop", "object_schema"]

Schema = dict[str, Any]


def prop(kind: str, description: str) -> Schema:
    """A described property of JSON type ``kind`` (TypeBox ``Type.String({description})``...)."""
    return {"type": kind, "description": description}


def object_schema(required: list[str], properties: dict[str, Schema], closed: bool = False) -> Schema:
    """An object with pi's key order (``type, required?, properties, additionalProperties?``)."""
    schema: Schema = {"type": "object"}
    if required:
        schema["required"] = required
    schema["properties"] = properties
    if closed:
        schema["additionalProperties"] = False
    return schema

_NUMERIC = re.compile(r"^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$")


def js_stringify_pretty(value: Any, indent: str = "") -> str:
    """``JSON.stringify(value, null, 2)``."""
    inner = indent + "  "
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f"{inner}{js_stringify(str(k))}: {js_stringify_pretty(v, inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    if isinstance(value, list):
        if not value:
            return "[]"
        return "[\n" + ",\n".join(inner + js_stringify_pretty(v, inner) for v in value) + "\n" + indent + "]"
    return js_stringify(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _convert(schema: Schema, value: Any) -> Any:
    """TypeBox ``Value.Convert`` for the types pi's tool schemas use."""
    kind = schema.get("type")
    if kind == "number" and isinstance(value, str) and _NUMERIC.match(value):
        number = float(value)
        return int(number) if number.is_integer() and math.isfinite(number) else number
    if kind == "number" and isinstance(value, bool):
        return 1 if value else 0
    if kind == "boolean" and value in ("true", "1", 1) and value is not True:
        return True
    if kind == "boolean" and value in ("false", "0", 0) and value is not False:
        return False
    if kind == "string" and (_is_number(value) or isinstance(value, bool)):
        return js_number(value) if not isinstance(value, bool) else ("true" if value else "false")
    if kind == "object" and isinstance(value, dict):
        props: dict[str, Schema] = schema.get("properties", {})
        return {k: (_convert(props[k], v) if k in props else v) for k, v in value.items()}
    if kind == "array" and isinstance(value, list) and "items" in schema:
        return [_convert(schema["items"], v) for v in value]
    return value


def _type_ok(kind: str, value: Any) -> bool:
    if kind == "string":
        return isinstance(value, str)
    if kind == "number":
        return _is_number(value) and math.isfinite(value)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "array":
        return isinstance(value, list)
    if kind == "object":
        return isinstance(value, dict)
    return True


def _check(schema: Schema, value: Any, path: str, errors: list[str]) -> None:
    kind = str(schema.get("type", ""))
    if not _type_ok(kind, value):
        errors.append(f"  - {path or 'root'}: must be {kind}")
        return
    if kind == "array":
        for index, item in enumerate(value):
            _check(schema["items"], item, f"{path}/{index}" if path else str(index), errors)
        return
    if kind != "object":
        return
    props: dict[str, Schema] = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in value:
            where = f"{path}/{name}" if path else name
            errors.append(f"  - {where}: must have required properties {name}")
    for name, sub in props.items():
        if name in value:
            _check(sub, value[name], f"{path}/{name}" if path else name, errors)
    if schema.get("additionalProperties") is False:
        extra = [k for k in value if k not in props]
        for name in extra:
            errors.append(f"  - {path + '/' if path else ''}{name}: schema is false")
        if extra:
            errors.append(f"  - {path or 'root'}: must not have additional properties")


def validate_arguments(tool_name: str, schema: Schema, arguments: Any) -> dict[str, Any]:
    """The converted arguments, or :class:`ToolError` with pi's validation text."""
    converted = _convert(schema, arguments)
    errors: list[str] = []
    _check(schema, converted, "", errors)
    if errors:
        raise ToolError(
            f'Validation failed for tool "{tool_name}":\n'
            + "\n".join(errors)
            + "\n\nReceived arguments:\n"
            + js_stringify_pretty(arguments)
        )
    assert isinstance(converted, dict)
    return converted
