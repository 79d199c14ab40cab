"""The read tool's outputs, notices and errors (pi-tools.md §2.1)."""

from __future__ import annotations

import base64
import struct
from pathlib import Path

import pytest

from tests.tools.conftest import Runner


@pytest.mark.asyncio
async def test_reads_text_without_line_numbers_keeping_cr_and_bom(project: Path, run: Runner) -> None:
    (project / "a.txt").write_bytes("\ufeffone\r\ntwo\n".encode())
    result = await run("read", path="a.txt")
    assert not result.is_error
    assert result.content == [{"type": "text", "text": "\ufeffone\r\ntwo\n"}]
    assert result.details is None


@pytest.mark.asyncio
async def test_empty_file_and_bad_bytes(project: Path, run: Runner) -> None:
    (project / "empty").write_bytes(b"")
    assert (await run("read", path="empty")).text == ""
    (project / "bad").write_bytes(b"a\xffb")
    assert (await run("read", path="bad")).text == "a\ufffdb"


@pytest.mark.asyncio
async def test_offset_and_limit_leave_a_continue_notice(project: Path, run: Runner) -> None:
    (project / "f").write_text("\n".join(f"L{i}" for i in range(1, 11)))
    result = await run("read", path="f", offset=3, limit=2)
    assert result.text == "L3\nL4\n\n[6 more lines in file. Use offset=5 to continue.]"
    assert result.details is None
    assert (await run("read", path="f", offset=9)).text == "L9\nL10"
    assert (await run("read", path="f", offset="9", limit="5")).text == "L9\nL10"  # coerced like TypeBox


@pytest.mark.asyncio
async def test_offset_beyond_end(project: Path, run: Runner) -> None:
    (project / "f").write_text("a\nb\n")  # three lines for pi: "a", "b", ""
    result = await run("read", path="f", offset=4)
    assert result.is_error
    assert result.text == "Offset 4 is beyond end of file (3 lines total)"
    assert result.details == {}


@pytest.mark.asyncio
async def test_line_limit_notice(project: Path, run: Runner) -> None:
    (project / "big").write_text("".join(f"{i}\n" for i in range(1, 2501)))
    result = await run("read", path="big")
    body = "\n".join(str(i) for i in range(1, 2001))
    assert result.text == body + "\n\n[Showing lines 1-2000 of 2501. Use offset=2001 to continue.]"
    assert result.details is not None
    trunc = result.details["truncation"]
    assert trunc["truncatedBy"] == "lines" and trunc["totalLines"] == 2501 and trunc["content"] == body
    tail = await run("read", path="big", offset=2001)
    assert tail.text == "".join(f"{i}\n" for i in range(2001, 2501))


@pytest.mark.asyncio
async def test_byte_limit_notice_and_total_lines_of_the_slice(project: Path, run: Runner) -> None:
    (project / "wide").write_text("\n".join("y" * 999 for _ in range(100)))  # 1000 bytes a line
    result = await run("read", path="wide", offset=11)
    shown = 51  # 51 * 1000 - 1 bytes fit in 51200
    assert result.text.endswith(
        f"\n\n[Showing lines 11-{10 + shown} of 100 (50.0KB limit). Use offset={11 + shown} to continue.]"
    )
    assert result.details is not None
    assert result.details["truncation"]["totalLines"] == 90  # only the slice, as in pi
    assert result.details["truncation"]["outputLines"] == shown


@pytest.mark.asyncio
async def test_first_line_over_the_limit_points_to_sed(project: Path, run: Runner) -> None:
    (project / "min.js").write_text("short\n" + "z" * 60000 + "\nend")
    result = await run("read", path="@min.js", offset=2)
    assert (
        result.text
        == "[Line 2 is 58.6KB, exceeds 50.0KB limit. Use bash: sed -n '2p' @min.js | head -c 51200]"
    )
    assert result.details is not None and result.details["truncation"]["firstLineExceedsLimit"] is True


@pytest.mark.asyncio
async def test_errors_are_node_messages(project: Path, run: Runner) -> None:
    missing = await run("read", path="nope.txt")
    assert (
        missing.is_error and missing.text == f"ENOENT: no such file or directory, access '{project}/nope.txt'"
    )
    (project / "d").mkdir()
    folder = await run("read", path="d")
    assert folder.text == "EISDIR: illegal operation on a directory, read"


def _png(width: int, height: int) -> bytes:
    return (
        b"\x89PNG\r\n\x1a\n"
        + struct.pack(">I", 13)
        + b"IHDR"
        + struct.pack(">II", width, height)
        + b"\x08\x02\x00\x00\x00"
        + b"\0" * 20
    )


@pytest.mark.asyncio
async def test_images_by_content_not_extension(project: Path, run: Runner) -> None:
    data = _png(10, 10)
    (project / "picture.dat").write_bytes(data)
    result = await run("read", path="picture.dat")
    assert result.content == [
        {"type": "text", "text": "Read image file [image/png]"},
        {"type": "image", "data": base64.b64encode(data).decode(), "mimeType": "image/png"},
    ]
    assert result.details is None
    (project / "logo.svg").write_text("<svg/>")
    assert (await run("read", path="logo.svg")).text == "<svg/>"


@pytest.mark.asyncio
async def test_image_too_large_to_send_is_omitted(project: Path, run: Runner) -> None:
    (project / "huge.png").write_bytes(_png(3000, 1000))
    result = await run("read", path="huge.png")
    assert result.content == [
        {
            "type": "text",
            "text": "Read image file [image/png]\n[Image omitted: could not be resized below the inline image size limit.]",
        }
    ]
