"""Image files for ``read``: type by content (as pi's ``file-type`` check) and pixel size from the header.

pi shrinks images over 2000×2000 pixels or 4.5 MB of base64 (``images.autoResize``). Arbor has no
image library below the UI layer, so such an image gets pi's own "could not be resized" notice
instead of a shrunk copy; everything within the limits is sent exactly as pi sends it.
"""

from __future__ import annotations

import struct

__all__ = ["detect_image_mime", "image_size", "MAX_IMAGE_SIDE", "MAX_IMAGE_BASE64"]

MAX_IMAGE_SIDE = 2000
MAX_IMAGE_BASE64 = int(4.5 * 1024 * 1024)


def detect_image_mime(head: bytes) -> str | None:
    """``image/png|jpeg|gif|webp`` from the first bytes, else ``None`` (svg is text)."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith(b"GIF87a") or head.startswith(b"GIF89a"):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            i += 1
            continue
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
            i += 1 if marker == 0xFF else 2
            continue
        length = struct.unpack(">H", data[i + 2 : i + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[i + 5 : i + 9])
            return width, height
        i += 2 + length
    return None


def _webp_size(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8X" and len(data) >= 30:
        width = 1 + int.from_bytes(data[24:27], "little")
        height = 1 + int.from_bytes(data[27:30], "little")
        return width, height
    if chunk == b"VP8L" and len(data) >= 25:
        bits = int.from_bytes(data[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8 " and len(data) >= 30:
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    return None


def image_size(data: bytes, mime: str) -> tuple[int, int] | None:
    """Width and height in pixels, or ``None`` when the header cannot be read."""
    if mime == "image/png" and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return width, height
    if mime == "image/gif" and len(data) >= 10:
        width, height = struct.unpack("<HH", data[6:10])
        return width, height
    if mime == "image/jpeg":
        return _jpeg_size(data)
    if mime == "image/webp":
        return _webp_size(data)
    return None
