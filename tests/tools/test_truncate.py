"""pi's truncation rules at their boundaries (pi-tools.md §1)."""

from __future__ import annotations

from desktop_app.tools.truncate import (
    DEFAULT_MAX_BYTES,
    format_size,
    truncate_head,
    truncate_tail,
)


def test_format_size_units_and_js_rounding() -> None:
    assert format_size(0) == "0B"
    assert format_size(1023) == "1023B"
    assert format_size(1024) == "1.0KB"
    assert format_size(51200) == "50.0KB"
    assert format_size(1280) == "1.3KB"  # 1.25 exactly: toFixed rounds the tie up, Python's format would not
    assert format_size(1024 * 1024) == "1.0MB"
    assert format_size(3 * 1024 * 1024 // 2) == "1.5MB"


def test_head_exactly_2000_lines_is_untouched_but_a_final_newline_makes_2001() -> None:
    text = "\n".join(["x"] * 2000)
    assert not truncate_head(text).truncated
    cut = truncate_head(text + "\n")
    assert cut.truncated and cut.truncated_by == "lines"
    assert cut.total_lines == 2001 and cut.output_lines == 2000
    assert cut.content == text


def test_head_bytes_boundary_counts_joining_newlines() -> None:
    line = "a" * 99  # 100 bytes with its newline
    text = "\n".join([line] * 512)  # 512 * 100 - 1 = 51199 bytes
    assert utf8_total(text) == 51199
    assert not truncate_head(text).truncated
    cut = truncate_head(text + "\nb")  # 51201 bytes
    assert cut.truncated_by == "bytes"
    assert cut.output_lines == 512 and cut.output_bytes == 51199
    details = cut.to_details()
    assert list(details) == [
        "content",
        "truncated",
        "truncatedBy",
        "totalLines",
        "totalBytes",
        "outputLines",
        "outputBytes",
        "lastLinePartial",
        "firstLineExceedsLimit",
        "maxLines",
        "maxBytes",
    ]
    assert details["maxLines"] == 2000 and details["maxBytes"] == DEFAULT_MAX_BYTES


def utf8_total(text: str) -> int:
    return len(text.encode())


def test_head_first_line_over_limit_gives_empty_content() -> None:
    cut = truncate_head("é" * 30000 + "\nshort")
    assert cut.content == "" and cut.first_line_exceeds_limit and cut.output_lines == 0
    assert cut.total_bytes == 60006


def test_tail_keeps_the_last_lines_and_counts_the_trailing_empty_line() -> None:
    text = "".join(f"{i}\n" for i in range(1, 2501))
    cut = truncate_tail(text)
    assert cut.total_lines == 2501 and cut.output_lines == 2000
    assert cut.content.startswith("502\n") and cut.content.endswith("2500\n")


def test_tail_partial_last_line_keeps_whole_characters() -> None:
    text = "start\n" + "€" * 20000  # 60000 bytes on the last line
    cut = truncate_tail(text)
    assert cut.last_line_partial and cut.output_lines == 1
    assert cut.content == "€" * (DEFAULT_MAX_BYTES // 3)
    assert cut.output_bytes == 51198
