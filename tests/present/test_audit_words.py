"""The audit's plain words, the split turn's start and the summary's file lists (no Qt)."""

from __future__ import annotations

from desktop_app.present.audit_words import audit_words, split_summary, turn_start

from .builders import msg, other


def test_words_say_what_was_summarized_and_kept() -> None:
    words = audit_words(34, 1, True, False)
    assert words.above == "▲ summarized: 34 entries replaced by the summary"
    assert words.below == "▼ kept word for word: 1 entry"
    assert "oldest entry the model still reads word for word" in words.first_kept
    assert "firstKeptEntryId" not in words.cut + words.first_kept  # plain words, not field names
    assert words.split == ""
    missing = audit_words(10, 0, False, True)
    assert missing.below == "▼ nothing kept" and "not on this path" in missing.cut
    assert missing.split.startswith("◆ split turn")


def test_the_split_turn_starts_at_the_nearest_user_message() -> None:
    path = [
        msg("u1", None, "user", "first"),
        msg("a1", "u1", "assistant", "x"),
        msg("u2", "a1", "user", "second"),
        msg("a2", "u2", "assistant", "y", stopReason="toolUse"),
        msg("t2", "a2", "toolResult", "z"),
        msg("a3", "t2", "assistant", "w"),
        other("compaction", "c1", "a3", summary="s", firstKeptEntryId="t2", tokensBefore=1),
    ]
    assert turn_start(path, "t2") == "u2"
    assert turn_start(path, "u2") == "u2"
    assert turn_start(path, "nope") is None and turn_start(path, None) is None


def test_file_lists_come_out_of_the_summary() -> None:
    summary = "## Goal\nship it\n\n<read-files>\nsrc/a.py\nsrc/b.py\n</read-files>\n\n<modified-files>\nsrc/c.py\n</modified-files>"
    text, read, modified = split_summary(summary)
    assert text == "## Goal\nship it"
    assert read == ("src/a.py", "src/b.py") and modified == ("src/c.py",)
    assert split_summary("plain") == ("plain", (), ())
