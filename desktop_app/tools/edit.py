"""The ``edit`` tool: exact (or, failing that, whitespace/quote-tolerant) text replacement.

:func:`plan_edit` is the pure part (pi's algorithm, pi-tools.md §2.3): it takes the file's text and
the edits and returns the text to write, the diff and the first changed line, or raises
:class:`ToolError` with pi's exact message. The approval card uses it to show the diff before
anything is written; :func:`execute_edit` runs it under the file's mutation lock and writes.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .context import ToolContext
from .diff import format_diff
from .display import first_arg, shorten_path, shown_text
from .paths import check_allowed, resolve_path
from .results import ToolError, ToolOutput, node_error_message
from .schema import object_schema, prop
from .spec import CallView, CardText, FileOp, ToolSpec
from .write import encode_like_node

__all__ = [
    "EDIT",
    "EditApproval",
    "EditPlan",
    "plan_edit",
    "execute_edit",
    "prepare_edit_arguments",
    "read_for_edit",
    "fuzzy_normalize",
]

# JavaScript's whitespace for String.prototype.trimEnd (WhiteSpace + LineTerminator).
_JS_WS = (
    "\u0009\u000a\u000b\u000c\u000d\u0020\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_SINGLE_QUOTES = re.compile("[\u2018\u2019\u201a\u201b]")
_DOUBLE_QUOTES = re.compile("[\u201c\u201d\u201e\u201f]")
_DASHES = re.compile("[\u2010-\u2015\u2212]")
_SPACES = re.compile("[\u00a0\u2002-\u200a\u202f\u205f\u3000]")


def prepare_edit_arguments(arguments: Any) -> Any:
    """pi's ``prepareArguments``: ``edits`` sent as a JSON string is parsed; a legacy top-level
    ``oldText``/``newText`` pair becomes one more edit. Returns a new object (the call is untouched)."""
    if not isinstance(arguments, dict):
        return arguments
    args = dict(arguments)
    edits = args.get("edits")
    if isinstance(edits, str):
        try:
            parsed = json.loads(edits)
        except ValueError:
            parsed = None
        if isinstance(parsed, list):
            args["edits"] = parsed
    if isinstance(args.get("oldText"), str) and isinstance(args.get("newText"), str):
        current = args.get("edits")
        merged = list(current) if isinstance(current, list) else []
        merged.append({"oldText": args.pop("oldText"), "newText": args.pop("newText")})
        args["edits"] = merged
    return args


def fuzzy_normalize(text: str) -> str:
    """pi's fuzzy space: NFKC, trailing whitespace per line, smart quotes, dashes, Unicode spaces."""
    text = unicodedata.normalize("NFKC", text)
    text = "\n".join(line.rstrip(_JS_WS) for line in text.split("\n"))
    text = _SINGLE_QUOTES.sub("'", text)
    text = _DOUBLE_QUOTES.sub('"', text)
    text = _DASHES.sub("-", text)
    return _SPACES.sub(" ", text)


def _to_lf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


@dataclass(frozen=True)
class EditPlan:
    new_text: str
    """The whole file to write (BOM and line endings restored)."""
    diff: str
    first_changed_line: int | None
    count: int


def _messages(path: str, many: bool) -> dict[str, str]:
    if many:
        return {
            "empty": "edits[{i}].oldText must not be empty in " + path + ".",
            "missing": "Could not find edits[{i}] in "
            + path
            + ". The oldText must match exactly including all whitespace and newlines.",
            "many": "Found {k} occurrences of edits[{i}] in "
            + path
            + ". Each oldText must be unique. Please provide more context to make it unique.",
            "same": f"No changes made to {path}. The replacements produced identical content.",
        }
    return {
        "empty": f"oldText must not be empty in {path}.",
        "missing": f"Could not find the exact text in {path}. "
        "The old text must match exactly including all whitespace and newlines.",
        "many": "Found {k} occurrences of the text in "
        + path
        + ". The text must be unique. Please provide more context to make it unique.",
        "same": f"No changes made to {path}. The replacement produced identical content. "
        "This might indicate an issue with special characters or the text not existing as expected.",
    }


def plan_edit(raw: str, edits: list[dict[str, Any]], path: str) -> EditPlan:
    """Apply ``edits`` to the file text ``raw`` the way pi does, or raise pi's error."""
    if not edits:
        raise ToolError("Edit tool input is invalid. edits must contain at least one replacement.")
    text = _messages(path, len(edits) > 1)
    bom = raw.startswith("\ufeff")
    content = raw[1:] if bom else raw
    first_newline = content.find("\n")
    crlf = first_newline > 0 and content[first_newline - 1] == "\r"
    base = _to_lf(content)
    olds = [_to_lf(str(edit["oldText"])) for edit in edits]
    news = [_to_lf(str(edit["newText"])) for edit in edits]
    for i, old in enumerate(olds):
        if old == "":
            raise ToolError(text["empty"].format(i=i))
    if not all(old in base for old in olds):
        base = fuzzy_normalize(base)
        olds = [fuzzy_normalize(old) for old in olds]
    fuzzy_base = fuzzy_normalize(base)
    spans: list[tuple[int, int, int]] = []
    for i, old in enumerate(olds):
        start = base.find(old)
        if start < 0:
            raise ToolError(text["missing"].format(i=i))
        occurrences = fuzzy_base.count(fuzzy_normalize(old))
        if occurrences > 1:
            raise ToolError(text["many"].format(i=i, k=occurrences))
        spans.append((start, start + len(old), i))
    spans.sort()
    for (_, end, a), (start, _, b) in zip(spans, spans[1:], strict=False):
        if start < end:
            raise ToolError(
                f"edits[{a}] and edits[{b}] overlap in {path}. Merge them into one edit or target disjoint regions."
            )
    result = base
    for start, end, i in reversed(spans):
        result = result[:start] + news[i] + result[end:]
    if result == base:
        raise ToolError(text["same"])
    diff, first_changed = format_diff(base, result)
    final = result.replace("\n", "\r\n") if crlf else result
    return EditPlan(("\ufeff" if bom else "") + final, diff, first_changed, len(edits))


def read_for_edit(path: str, abs_path: str) -> str:
    """The file's text, after pi's read+write access check (``Could not edit file: ...``)."""
    if not os.access(abs_path, os.R_OK | os.W_OK):
        code = "ENOENT" if not os.path.exists(abs_path) else "EACCES"
        raise ToolError(f"Could not edit file: {path}. Error code: {code}.")
    try:
        with open(abs_path, "rb") as handle:
            return handle.read().decode("utf-8", "replace")
    except IsADirectoryError as exc:
        raise ToolError(node_error_message(exc, "read")) from exc
    except OSError as exc:
        raise ToolError(node_error_message(exc, "open", abs_path)) from exc


def _edit_file(path: str, abs_path: str, edits: list[dict[str, Any]]) -> EditPlan:
    plan = plan_edit(read_for_edit(path, abs_path), edits, path)
    try:
        with open(abs_path, "wb") as handle:
            handle.write(encode_like_node(plan.new_text))
    except OSError as exc:
        raise ToolError(node_error_message(exc, "open", abs_path)) from exc
    return plan


async def execute_edit(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    path = str(args["path"])
    abs_path = resolve_path(path, ctx.cwd)
    check_allowed(abs_path, ctx.cwd, ctx.policy)
    edits: list[dict[str, Any]] = list(args["edits"])
    if not edits:
        raise ToolError("Edit tool input is invalid. edits must contain at least one replacement.")
    async with ctx.mutation_queue.hold(abs_path):
        plan = await asyncio.to_thread(_edit_file, path, abs_path, edits)
    details: dict[str, Any] = {"diff": plan.diff}
    if plan.first_changed_line is not None:
        details["firstChangedLine"] = plan.first_changed_line
    return ToolOutput.text(f"Successfully replaced {plan.count} block(s) in {path}.", details)


@dataclass(frozen=True)
class EditApproval:
    """An edit waiting for the user: the diff it would make, or the error it would give."""

    tool_call_id: str
    path: str
    """As the model wrote it."""
    abs_path: str
    diff: str | None
    """pi's diff of the change (``details.diff``), or ``None`` when the edit would fail."""
    first_changed_line: int | None
    error: str | None
    """The error the edit would report (not found, not unique...), shown instead of a diff."""
    tool_name: str = field(default="edit", init=False)

    def card(self) -> CardText:
        """The file and the diff, or a warning with the error the edit would give."""
        title, facts = f"Edit {self.path}?", (self.abs_path,)
        if self.diff is not None:
            return CardText(title, facts, self.diff, "diff")
        return CardText(title, facts, "", None, f"This edit would fail: {self.error or 'unknown error'}")


def describe_edit(call_id: str, args: dict[str, Any], ctx: ToolContext) -> EditApproval:
    """The card for an edit: its diff, computed without writing anything."""
    args = prepare_edit_arguments(args)
    path = str(args.get("path", ""))
    abs_path = resolve_path(path, ctx.cwd)
    edits = args.get("edits")
    try:
        if not isinstance(edits, list) or not all(isinstance(e, dict) for e in edits):
            raise ToolError("The edits are not a list of {oldText, newText} objects.")
        plan = plan_edit(read_for_edit(path, abs_path), edits, path)
    except (ToolError, KeyError) as exc:
        return EditApproval(call_id, path, abs_path, None, None, str(exc))
    return EditApproval(call_id, path, abs_path, plan.diff, plan.first_changed_line, None)


def format_edit_call(args: Mapping[str, Any]) -> str:
    """``[edit: ~/src/app.py]``."""
    return f"[edit: {shorten_path(first_arg(args, 'path', 'file_path'))}]"


def _edit_view(args: dict[str, Any]) -> CallView | None:
    """The path, then each edit as a ``@@`` hunk of ``-old`` and ``+new`` lines (also pi's older
    single ``oldText``/``newText`` form)."""
    raw_edits = args.get("edits")
    if not isinstance(raw_edits, list) and "oldText" not in args:
        return None
    edits: list[Any] = raw_edits if isinstance(raw_edits, list) else [args]
    lines: list[str] = []
    for one in edits:
        if not isinstance(one, dict):
            continue
        lines.append("@@")
        lines += ["-" + line for line in shown_text(one.get("oldText")).split("\n")]
        lines += ["+" + line for line in shown_text(one.get("newText")).split("\n")]
    return CallView("\n".join(lines), "diff", shown_text(args.get("path")))


EDIT = ToolSpec(
    name="edit",
    description=(
        "Edit a single file using exact text replacement. Every edits[].oldText must match a unique, "
        "non-overlapping region of the original file. If two changes affect the same block or nearby lines, "
        "merge them into one edit instead of emitting overlapping edits. Do not include large unchanged "
        "regions just to connect distant changes."
    ),
    parameters=object_schema(
        ["path", "edits"],
        {
            "path": prop("string", "Path to the file to edit (relative or absolute)"),
            "edits": {
                "type": "array",
                "description": (
                    "One or more targeted replacements. Each edit is matched against the original file, not "
                    "incrementally. Do not include overlapping or nested edits. If two changes touch the same "
                    "block or nearby lines, merge them into one edit instead."
                ),
                "items": object_schema(
                    ["oldText", "newText"],
                    {
                        "oldText": prop(
                            "string",
                            "Exact text for one targeted replacement. It must be unique in the original file "
                            "and must not overlap with any other edits[].oldText in the same call.",
                        ),
                        "newText": prop("string", "Replacement text for this targeted edit."),
                    },
                    closed=True,
                ),
            },
        },
        closed=True,
    ),
    execute=execute_edit,
    snippet="Make precise file edits with exact text replacement, including multiple disjoint edits in one call",
    main_argument="path",
    format_call=format_edit_call,
    guidelines=(
        "Use edit for precise changes (edits[].oldText must match exactly)",
        "When changing multiple separate locations in one file, use one edit call with multiple entries in "
        "edits[] instead of multiple edit calls",
        "Each edits[].oldText is matched against the original file, not after earlier edits are applied. Do not "
        "emit overlapping or nested edits. Merge nearby changes into one edit.",
        "Keep edits[].oldText as small as possible while still being unique in the file. Do not pad with large "
        "unchanged regions.",
    ),
    prepare=prepare_edit_arguments,
    describe=describe_edit,
    file_op=FileOp.EDITED,
    call_view=_edit_view,
)
