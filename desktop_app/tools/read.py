"""The ``read`` tool: a text file (no line numbers) cut at 2000 lines / 50 KB, or an image."""

from __future__ import annotations

import asyncio
import base64
import errno
import os
from collections.abc import Mapping
from typing import Any

from .context import ToolContext
from .display import command_rest, first_arg, js_text, shorten_path
from .images import MAX_IMAGE_BASE64, MAX_IMAGE_SIDE, detect_image_mime, image_size
from .paths import check_allowed, resolve_path
from .results import ToolError, ToolOutput, node_error_message, text_block
from .schema import object_schema, prop
from .spec import FileOp, ToolSpec
from .truncate import DEFAULT_MAX_BYTES, format_size, truncate_head, utf8_len

__all__ = ["READ", "execute_read"]

NO_IMAGE_SUPPORT = "\n[Current model does not support images. The image will be omitted from this request.]"
IMAGE_TOO_LARGE = "\n[Image omitted: could not be resized below the inline image size limit.]"


def _read_image(data: bytes, mime: str, ctx: ToolContext) -> ToolOutput:
    text = f"Read image file [{mime}]"
    if not ctx.model_supports_images:
        return ToolOutput([text_block(text + NO_IMAGE_SUPPORT)])
    encoded = base64.b64encode(data).decode("ascii")
    size = image_size(data, mime)
    too_big = size is not None and (size[0] > MAX_IMAGE_SIDE or size[1] > MAX_IMAGE_SIDE)
    if too_big or len(encoded) > MAX_IMAGE_BASE64:
        return ToolOutput([text_block(text + IMAGE_TOO_LARGE)])
    return ToolOutput([text_block(text), {"type": "image", "data": encoded, "mimeType": mime}])


def _load(abs_path: str) -> bytes:
    if not os.access(abs_path, os.R_OK):
        code = errno.ENOENT if not os.path.exists(abs_path) else errno.EACCES
        raise ToolError(node_error_message(OSError(code, os.strerror(code)), "access", abs_path))
    try:
        with open(abs_path, "rb") as handle:
            return handle.read()
    except IsADirectoryError as exc:
        raise ToolError(node_error_message(exc, "read")) from exc
    except OSError as exc:
        raise ToolError(node_error_message(exc, "open", abs_path)) from exc


def _number(value: Any) -> int | None:
    """pi treats ``0``/missing as "not given" for offset; limits are used as given."""
    if value is None:
        return None
    return int(value)


async def execute_read(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    """Reads wait behind queued writes and edits of the same file (pi does not queue reads, and a
    read batched with a write of its file raced and returned ``""``); then the work runs in a thread."""
    path = str(args["path"])
    abs_path = resolve_path(path, ctx.cwd)
    check_allowed(abs_path, ctx.cwd, ctx.policy)
    async with ctx.mutation_queue.hold(abs_path):
        data = await asyncio.to_thread(_load, abs_path)
    return await asyncio.to_thread(_render, path, data, args, ctx)


def _render(path: str, data: bytes, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    mime = detect_image_mime(data[:4100])
    if mime is not None:
        return _read_image(data, mime, ctx)

    offset = _number(args.get("offset"))
    limit = _number(args.get("limit"))
    lines = data.decode("utf-8", "replace").split("\n")
    total = len(lines)
    start = max(0, offset - 1) if offset else 0
    if start >= total:
        raise ToolError(f"Offset {offset} is beyond end of file ({total} lines total)")
    selected = lines[start : start + limit] if limit is not None else lines[start:]
    cut = truncate_head("\n".join(selected))
    first = start + 1
    if cut.first_line_exceeds_limit:
        size = format_size(utf8_len(lines[start]))
        text = (
            f"[Line {first} is {size}, exceeds {format_size(DEFAULT_MAX_BYTES)} limit. "
            f"Use bash: sed -n '{first}p' {path} | head -c {DEFAULT_MAX_BYTES}]"
        )
        return ToolOutput.text(text, {"truncation": cut.to_details()})
    if cut.truncated:
        end = start + cut.output_lines
        limit_note = f" ({format_size(cut.max_bytes)} limit)" if cut.truncated_by == "bytes" else ""
        text = f"{cut.content}\n\n[Showing lines {first}-{end} of {total}{limit_note}. Use offset={end + 1} to continue.]"
        return ToolOutput.text(text, {"truncation": cut.to_details()})
    if limit is not None and start + len(selected) < total:
        rest = total - (start + len(selected))
        text = f"{cut.content}\n\n[{rest} more lines in file. Use offset={start + len(selected) + 1} to continue.]"
        return ToolOutput.text(text)
    return ToolOutput.text(cut.content)


def format_read_call(args: Mapping[str, Any]) -> str:
    """``[read: ~/p/file.ts:10-29]``: the path, and the lines asked for when an offset or limit is given."""
    display = shorten_path(first_arg(args, "path", "file_path"))
    offset, limit = args.get("offset"), args.get("limit")
    if offset is not None or limit is not None:
        start = offset if offset is not None else 1
        end = ""
        if isinstance(limit, (int, float)) and isinstance(start, (int, float)):
            end_value = start + limit - 1
            end = str(int(end_value)) if float(end_value).is_integer() else str(end_value)
        display += f":{js_text(start)}" + (f"-{end}" if end else "")
    return f"[read: {display}]"


def _read_command(text: str) -> dict[str, Any] | None:
    """``read <path>``."""
    path = command_rest(text)
    return {"path": path} if path else None


READ = ToolSpec(
    name="read",
    description=(
        "Read the contents of a file. Supports text files and images (jpg, png, gif, webp). Images are sent "
        "as attachments. For text files, output is truncated to 2000 lines or 50KB (whichever is hit first). "
        "Use offset/limit for large files. When you need the full file, continue with offset until complete."
    ),
    parameters=object_schema(
        ["path"],
        {
            "path": prop("string", "Path to the file to read (relative or absolute)"),
            "offset": prop("number", "Line number to start reading from (1-indexed)"),
            "limit": prop("number", "Maximum number of lines to read"),
        },
    ),
    execute=execute_read,
    snippet="Read file contents",
    main_argument="path",
    format_call=format_read_call,
    guidelines=("Use read to examine files instead of cat or sed.",),
    file_op=FileOp.READ,
    parse_command=_read_command,
)
