"""write and edit: pi's texts, errors, line endings, fuzzy matching, diff, mutation order (§2.2, §2.3, §5)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from desktop_app.tools import ToolContext, run_tool
from desktop_app.tools.diff import format_diff
from tests.tools.conftest import Runner, tool_call

GREET = 'def greet(name):\n    return "Hello, " + name\n\nprint(greet("world"))\n'


@pytest.mark.asyncio
async def test_write_creates_parents_and_counts_utf16_units(project: Path, run: Runner) -> None:
    result = await run("write", path="notes/todo.md", content="- add tests\n")
    assert result.text == "Successfully wrote 12 bytes to notes/todo.md"
    assert result.details is None and list(result.to_message())[4] == "isError"
    assert (project / "notes" / "todo.md").read_text() == "- add tests\n"
    emoji = await run("write", path="u.txt", content="héllo wörld 😀\n")
    assert emoji.text == "Successfully wrote 15 bytes to u.txt"
    assert len((project / "u.txt").read_bytes()) == 19


@pytest.mark.asyncio
async def test_write_keeps_content_exactly_and_overwrites(project: Path, run: Runner) -> None:
    (project / "f").write_text("old")
    await run("write", path="f", content="\ufeffa\r\nb")
    assert (project / "f").read_bytes() == "\ufeffa\r\nb".encode()


@pytest.mark.asyncio
async def test_write_errors(project: Path, run: Runner) -> None:
    (project / "dir").mkdir()
    folder = await run("write", path="dir", content="x")
    assert (
        folder.is_error and folder.text == f"EISDIR: illegal operation on a directory, open '{project}/dir'"
    )
    (project / "file").write_text("x")
    under_file = await run("write", path="file/child.txt", content="x")
    assert under_file.text == f"EEXIST: file already exists, mkdir '{project}/file'"


@pytest.mark.asyncio
async def test_edit_success_text_and_details(project: Path, run: Runner) -> None:
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text(GREET)
    result = await run(
        "edit", path="src/app.py", edits=[{"oldText": '"Hello, " + name', "newText": 'f"Hello, {name}!"'}]
    )
    assert result.text == "Successfully replaced 1 block(s) in src/app.py."
    assert result.details == {
        "diff": ' 1 def greet(name):\n-2     return "Hello, " + name\n+2     return f"Hello, {name}!"\n 3 \n 4 print(greet("world"))',
        "firstChangedLine": 2,
    }
    assert list(result.to_message()) == [
        "role",
        "toolCallId",
        "toolName",
        "content",
        "details",
        "isError",
        "timestamp",
    ]


@pytest.mark.asyncio
async def test_several_edits_apply_to_the_original(project: Path, run: Runner) -> None:
    (project / "f").write_text("alpha\nbeta\ngamma\n")
    result = await run(
        "edit",
        path="f",
        edits=[{"oldText": "gamma", "newText": "GAMMA"}, {"oldText": "alpha", "newText": "gamma"}],
    )
    assert result.text == "Successfully replaced 2 block(s) in f."
    assert (project / "f").read_text() == "gamma\nbeta\nGAMMA\n"


@pytest.mark.asyncio
async def test_edit_error_messages_single(project: Path, run: Runner) -> None:
    (project / "f").write_text("x = 1\ny = 1\n")
    missing = await run("edit", path="f", edits=[{"oldText": "z = 1", "newText": "z"}])
    assert missing.is_error and missing.details == {}
    assert (
        missing.text
        == "Could not find the exact text in f. The old text must match exactly including all whitespace and newlines."
    )
    many = await run("edit", path="f", edits=[{"oldText": " = 1", "newText": "=2"}])
    assert (
        many.text
        == "Found 2 occurrences of the text in f. The text must be unique. Please provide more context to make it unique."
    )
    empty = await run("edit", path="f", edits=[{"oldText": "", "newText": "x"}])
    assert empty.text == "oldText must not be empty in f."
    same = await run("edit", path="f", edits=[{"oldText": "x = 1", "newText": "x = 1"}])
    assert same.text == (
        "No changes made to f. The replacement produced identical content. "
        "This might indicate an issue with special characters or the text not existing as expected."
    )
    none = await run("edit", path="f", edits=[])
    assert none.text == "Edit tool input is invalid. edits must contain at least one replacement."
    gone = await run("edit", path="nope.py", edits=[{"oldText": "a", "newText": "b"}])
    assert gone.text == "Could not edit file: nope.py. Error code: ENOENT."
    assert (project / "f").read_text() == "x = 1\ny = 1\n"


@pytest.mark.asyncio
async def test_edit_error_messages_multiple(project: Path, run: Runner) -> None:
    (project / "f").write_text("one\ntwo\ntwo\nthree\n")
    empty = await run(
        "edit", path="f", edits=[{"oldText": "one", "newText": "1"}, {"oldText": "", "newText": "x"}]
    )
    assert empty.text == "edits[1].oldText must not be empty in f."
    missing = await run(
        "edit", path="f", edits=[{"oldText": "one", "newText": "1"}, {"oldText": "four", "newText": "4"}]
    )
    assert (
        missing.text
        == "Could not find edits[1] in f. The oldText must match exactly including all whitespace and newlines."
    )
    many = await run(
        "edit", path="f", edits=[{"oldText": "one", "newText": "1"}, {"oldText": "two", "newText": "2"}]
    )
    assert (
        many.text
        == "Found 2 occurrences of edits[1] in f. Each oldText must be unique. Please provide more context to make it unique."
    )
    overlap = await run(
        "edit",
        path="f",
        edits=[{"oldText": "two\nthree", "newText": "x"}, {"oldText": "one\ntwo\ntwo", "newText": "y"}],
    )
    assert (
        overlap.text
        == "edits[1] and edits[0] overlap in f. Merge them into one edit or target disjoint regions."
    )
    same = await run(
        "edit",
        path="f",
        edits=[{"oldText": "one", "newText": "one"}, {"oldText": "three", "newText": "three"}],
    )
    assert same.text == "No changes made to f. The replacements produced identical content."
    assert (project / "f").read_text() == "one\ntwo\ntwo\nthree\n"


@pytest.mark.asyncio
async def test_fuzzy_count_can_refuse_an_exact_unique_match(project: Path, run: Runner) -> None:
    (project / "f").write_text("a \nb\na\nb\n")
    result = await run("edit", path="f", edits=[{"oldText": "a \nb", "newText": "c"}])
    assert result.text.startswith("Found 2 occurrences of the text in f.")


@pytest.mark.asyncio
async def test_fuzzy_edit_saves_the_whole_file_normalised(project: Path, run: Runner) -> None:
    (project / "f").write_text("say “hi” — now  \nkeep\tthis\t\nﬁle\n")
    result = await run("edit", path="f", edits=[{"oldText": 'say "hi" - now', "newText": "said hi"}])
    assert not result.is_error, result.text
    assert (project / "f").read_text() == "said hi\nkeep\tthis\nfile\n"


@pytest.mark.asyncio
async def test_crlf_and_bom_are_kept(project: Path, run: Runner) -> None:
    (project / "w.txt").write_bytes(b"\xef\xbb\xbfone\r\ntwo\nthree\r\n")
    result = await run("edit", path="w.txt", edits=[{"oldText": "two\nthree", "newText": "2\n3"}])
    assert not result.is_error, result.text
    assert (project / "w.txt").read_bytes() == b"\xef\xbb\xbfone\r\n2\r\n3\r\n"  # mixed endings unified


@pytest.mark.asyncio
async def test_legacy_and_string_arguments(project: Path, run: Runner) -> None:
    (project / "f").write_text("aaa bbb ccc")
    legacy = await run("edit", path="f", oldText="bbb", newText="BBB")
    assert legacy.text == "Successfully replaced 1 block(s) in f."
    as_string = await run("edit", path="f", edits='[{"oldText": "ccc", "newText": "CCC"}]')
    assert as_string.text == "Successfully replaced 1 block(s) in f."
    assert (project / "f").read_text() == "aaa BBB CCC"


@pytest.mark.asyncio
async def test_edit_schema_is_closed(run: Runner) -> None:
    result = await run("edit", path="f", edits=[{"oldText": "a", "newText": "b"}], extra=1)
    assert result.text == (
        'Validation failed for tool "edit":\n  - extra: schema is false\n  - root: must not have additional properties\n\n'
        'Received arguments:\n{\n  "path": "f",\n  "edits": [\n    {\n      "oldText": "a",\n      "newText": "b"\n    }\n  ],\n  "extra": 1\n}'
    )
    missing = await run("edit", path="f")
    assert missing.text.startswith(
        'Validation failed for tool "edit":\n  - edits: must have required properties edits\n'
    )


@pytest.mark.asyncio
async def test_same_file_mutations_in_one_batch_apply_in_call_order(project: Path) -> None:
    (project / "f").write_text("v0")
    ctx = ToolContext(cwd=str(project))
    calls = [
        tool_call("edit", path="f", edits=[{"oldText": f"v{i}", "newText": f"v{i + 1}"}]) for i in range(5)
    ]
    results = await asyncio.gather(*(run_tool(c, ctx) for c in calls))
    assert [r.is_error for r in results] == [False] * 5
    assert (project / "f").read_text() == "v5"


def test_diff_context_rules() -> None:
    old = "\n".join(str(i) for i in range(1, 31))
    new = "\n".join("X" if i in (3, 20) else str(i) for i in range(1, 31))
    text, first = format_diff(old, new)
    assert first == 3
    assert text.split("\n") == [
        "  1 1", "  2 2", "- 3 3", "+ 3 X", "  4 4", "  5 5", "  6 6", "  7 7", "    ...",
        " 16 16", " 17 17", " 18 18", " 19 19", "-20 20", "+20 X", " 21 21", " 22 22", " 23 23", " 24 24", "    ...",
    ]  # fmt: skip
    short_gap = "\n".join("X" if i in (2, 11) else str(i) for i in range(1, 13))
    lines = format_diff("\n".join(str(i) for i in range(1, 13)), short_gap)[0].split("\n")
    assert "    ..." not in lines and len(lines) == 14  # 8 lines between changes are shown whole
    assert format_diff("a\nb", "a\nb\n") == (" 1 a\n-2 b\n+2 b", 2)
