"""File lists (JS sort order) and the serialized transcript a summarizer reads (pi-spec §5.8)."""

from __future__ import annotations

from desktop_app.compaction.file_ops import (
    FileOperations,
    compute_file_lists,
    extract_file_ops,
    format_file_operations,
    js_sorted,
)
from desktop_app.compaction.serialize import serialize_conversation, truncate_for_summary
from desktop_app.session.jsjson import utf16_len
from desktop_app.session.profile import PI_0_73_1 as OLD

from .builders import assistant, tool_call, tool_result, user


def test_extract_file_ops_only_read_write_edit_with_string_path() -> None:
    message = assistant(
        "",
        tool_calls=[
            tool_call("read", "1", path="a.ts"),
            tool_call("write", "2", path="b.ts"),
            tool_call("edit", "3", path="c.ts"),
            tool_call("read", "4", path=""),
            tool_call("read", "5", file_path="d.ts"),
            tool_call("bash", "6", path="e.ts"),
            tool_call("read", "7", path=7),
            tool_call("read", "8", path="a.ts"),
        ],
    )
    ops = extract_file_ops(message)
    assert ops.to_json() == {"read": ["a.ts"], "written": ["b.ts"], "edited": ["c.ts"]}
    assert extract_file_ops(user("read a.ts")).is_empty()


def test_file_ops_go_by_the_tool_name_alone_and_ignore_odd_names() -> None:
    odd_names = [{"type": "toolCall", "id": str(i), "name": name, "arguments": {"path": "x.ts"}}
                 for i, name in enumerate((["read"], None, 3, "Read", "grep", "ls", "find", {"n": 1}))]
    message = assistant("", tool_calls=[*odd_names, tool_call("edit", "9", path="e.ts", edits="not a list")])
    assert extract_file_ops(message).to_json() == {"read": [], "written": [], "edited": ["e.ts"]}


def test_file_lists_sort_by_utf16_code_units_and_modified_wins() -> None:
    ops = FileOperations()
    ops.add_read(["z.ts", "\uff21.ts", "😀.ts", "a.ts", "both.ts"])
    ops.written["both.ts"] = None
    ops.edited["m.ts"] = None
    lists = compute_file_lists(ops)
    # code points: U+FF21 < U+1F600; UTF-16 units: 0xD83D (emoji) < 0xFF21 — JavaScript sorts the emoji first
    assert lists.read_files == ["a.ts", "z.ts", "😀.ts", "\uff21.ts"]
    assert lists.modified_files == ["both.ts", "m.ts"]
    assert js_sorted(["b", "B", "a"]) == ["B", "a", "b"]


def test_format_file_operations() -> None:
    assert format_file_operations([], []) == ""
    assert format_file_operations(["a", "b"], []) == "\n\n<read-files>\na\nb\n</read-files>"
    assert format_file_operations([], ["m"]) == "\n\n<modified-files>\nm\n</modified-files>"
    assert (
        format_file_operations(["r"], ["m"])
        == "\n\n<read-files>\nr\n</read-files>\n\n<modified-files>\nm\n</modified-files>"
    )


def test_truncation_counts_utf16_units_and_may_split_a_surrogate_pair() -> None:
    assert truncate_for_summary("x" * 2000, whole_pairs=False) == "x" * 2000
    text = "x" * 1999 + "😀" + "tail"
    out = truncate_for_summary(text, whole_pairs=False)
    assert out.startswith("x" * 1999 + "\ud83d\n\n")  # the high surrogate stays, alone
    assert out.endswith(f"[... {utf16_len(text) - 2000} more characters truncated]")
    assert utf16_len(text) - 2000 == 5


def test_serialize_conversation_parts_and_order() -> None:
    calls = [tool_call("read", "1", path="a.ts", **{"10": 1, "2": [1.0, None]}), tool_call("ls", "2")]
    messages = [
        user("hello"),
        {
            "role": "user",
            "content": [{"type": "text", "text": "a"}, {"type": "image"}, {"type": "text", "text": "b"}],
        },
        {"role": "user", "content": ""},
        assistant("answer", thinking="hmm", tool_calls=calls),
        {"role": "assistant", "content": [{"type": "text", "text": "t1"}, {"type": "text", "text": "t2"}]},
        tool_result("result"),
        tool_result(""),
    ]
    assert serialize_conversation(messages, profile=OLD) == "\n\n".join(
        [
            "[User]: hello",
            "[User]: ab",
            "[Assistant thinking]: hmm",
            "[Assistant]: answer",
            '[Assistant tool calls]: read(2=[1,null], 10=1, path="a.ts"); ls()',
            "[Assistant]: t1\nt2",
            "[Tool result]: result",
        ]
    )
    long = serialize_conversation([tool_result("y" * 2500)], profile=OLD)
    assert long == "[Tool result]: " + "y" * 2000 + "\n\n[... 500 more characters truncated]"
    assert serialize_conversation([], profile=OLD) == ""
