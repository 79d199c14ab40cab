"""present/file_changes.py without Qt: the offer, badges, the menu's rule, diffs (issue 25)."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_app.present.file_changes import (
    BadgeCache,
    ChangeBadge,
    FilesOffer,
    LineKind,
    RestoreChoice,
    ask_again_rule,
    badge_for,
    checkpoint_note,
    diff_line_kind,
    file_offsets,
    files_rule,
    load_branch_diff,
    load_turn_diff,
    prepare_offer,
    restore_failed_text,
    restoring_text,
    turn_badges,
)
from desktop_app.present.filters import FILTER_MODES, is_visible
from desktop_app.present.node_menu import MenuAction, node_menu
from desktop_app.present.window_state import UiState
from desktop_app.session import SessionManager
from desktop_app.workspace.changes import ChangeKind, FileChange
from desktop_app.workspace.checkpoints import CHECKPOINT_TYPE
from desktop_app.workspace.store import RestoreFailed
from tests.checkpointed import V1, V3, Checkpointed, build_checkpointed


@pytest.fixture
def made(tmp_path: Path) -> Checkpointed:
    return build_checkpointed(tmp_path)


def _open(made: Checkpointed) -> SessionManager:
    return SessionManager.open(made.path, fsync=False)


def test_badges_sit_on_each_turns_final_reply_with_its_numbers(made: Checkpointed) -> None:
    manager = _open(made)
    badges = turn_badges(manager.index)
    r1, r2, r3 = made.replies
    assert badges == {r1: ChangeBadge(1, 3, 0), r2: ChangeBadge(1, 1, 1), r3: ChangeBadge(2, 2, 1)}
    assert badges[r3].text == "2 files +2 \u22121" and badges[r1].text == "1 file +3 \u22120"
    assert badge_for(badges, [r1, "x", r2]) == ChangeBadge(1, 4, 1)  # a folded run: notes.md once, lines added up
    assert badge_for(badges, [r2, r3]) == ChangeBadge(2, 3, 2)
    assert badges[r3].paths == ("extra.txt", "notes.md")
    assert badge_for(badges, ["x"]) is None
    cache = BadgeCache()
    first = cache.badges(manager.index)
    assert cache.badges(manager.index) is first  # same revision: not made again
    manager.append_message({"role": "user", "content": "more", "timestamp": 1})
    assert cache.badges(manager.index) is not first


def test_a_session_without_checkpoints_has_no_badge() -> None:
    manager = SessionManager.in_memory("/tmp")
    manager.append_message({"role": "user", "content": "hi", "timestamp": 1})
    assert turn_badges(manager.index) == {}


def test_checkpoints_are_no_canvas_nodes_except_under_all(made: Checkpointed) -> None:
    manager = _open(made)
    checkpoints = [e for e in manager.get_entries() if e.get("customType") == CHECKPOINT_TYPE]
    assert len(checkpoints) == 4
    for mode in FILTER_MODES:
        shown = [is_visible(e, mode, manager.leaf_id, {}) for e in checkpoints]
        assert shown == [mode == "all"] * 4, mode


def test_the_offer_counts_the_files_and_names_hand_edits(made: Checkpointed) -> None:
    manager = _open(made)
    r1, _r2, r3 = made.replies
    offer = prepare_offer(manager, str(made.folder), r1, r3)
    assert offer is not None and offer.count == 2
    assert sorted((c.kind, c.path) for c in offer.changes) == [(ChangeKind.DELETED, "extra.txt"),
                                                                (ChangeKind.MODIFIED, "notes.md")]
    assert offer.restore_label == "Restore files to this point (2 files)"
    assert offer.hand_edited == () and offer.hand_edit_text == ""
    assert prepare_offer(manager, str(made.folder), r3, r3) is None  # the folder matches: nothing to offer
    assert prepare_offer(manager, str(made.folder), made.users[0], r3) is None  # no checkpoint before it
    (made.folder / "notes.md").write_text("edited by hand\n")
    offer = prepare_offer(manager, str(made.folder), r1, r3)
    assert offer is not None and offer.hand_edited == ("notes.md",)
    assert offer.hand_edit_text.startswith("You changed 1 file by hand since the last checkpoint: notes.md. "
                                           "Restoring overwrites it ")
    assert (made.folder / "notes.md").read_text() == "edited by hand\n"  # planning writes nothing


def test_restore_failure_words() -> None:
    failed = RestoreFailed("could not write notes.md; the files were put back", rolled_back=True, undo="abc")
    assert restore_failed_text(failed) == "The restore stopped part-way: could not write notes.md; the files were put back"
    assert restore_failed_text(ValueError("gone")) == "Could not restore the files: gone"
    one = FilesOffer("t", None, "/w", (FileChange("a.txt", ChangeKind.MODIFIED, 1, 1),), ())
    assert restoring_text(one) == "Restoring 1 file\u2026"


def test_ask_again_applies_only_to_a_remembered_answer() -> None:
    rules = {choice: ask_again_rule(choice) for choice in RestoreChoice}
    assert [enabled for enabled, _ in rules.values()] == [False, True, True]  # ask, restore, keep
    assert "restored without asking" in rules[RestoreChoice.RESTORE][1]
    assert "kept without asking" in rules[RestoreChoice.KEEP][1]
    assert "no answer is remembered" in rules[RestoreChoice.ASK][1]


def test_menu_items_and_diffs(made: Checkpointed) -> None:
    manager = _open(made)
    r1, r2, r3 = made.replies
    items = {i.action: i for i in node_menu(manager, r3, busy=False)}
    assert items[MenuAction.SHOW_CHANGES].enabled and "2 files" in items[MenuAction.SHOW_CHANGES].reason
    assert not items[MenuAction.CHANGES_SINCE].enabled  # the leaf itself
    items = {i.action: i for i in node_menu(manager, made.users[0], busy=False)}
    assert not items[MenuAction.SHOW_CHANGES].enabled
    assert items[MenuAction.CHANGES_SINCE].enabled
    assert files_rule(manager, r1, False)[0]

    doc = load_turn_diff(manager.index, str(made.folder), r3)
    assert [(f.kind, f.path) for f in doc.files] == [(ChangeKind.ADDED, "extra.txt"), (ChangeKind.MODIFIED, "notes.md")]
    assert "-v2" in doc.text.splitlines() and "+v3" in doc.text.splitlines()
    offsets = file_offsets(doc.text, doc.files)
    assert doc.text.split("\n")[offsets["notes.md"]] == "diff --git a/notes.md b/notes.md"
    since = load_branch_diff(manager.index, str(made.folder), r1, r3)
    assert "-v1" in since.text.splitlines() and "+v3" in since.text.splitlines()
    assert load_turn_diff(manager.index, str(made.folder), made.users[0]).note == "This turn changed no file."
    assert V1 != V3


def test_diff_line_kinds_and_checkpoint_note() -> None:
    assert [diff_line_kind(s) for s in ("diff --git a/x b/x", "--- a/x", "+++ b/x", "@@ -1 +1 @@", "+new", "-old", " same",
                                         "Binary files a/x and b/x differ")] == [
        LineKind.FILE, LineKind.FILE, LineKind.FILE, LineKind.HUNK, LineKind.ADDED, LineKind.REMOVED,
        LineKind.CONTEXT, LineKind.FILE]
    note = "No checkpoint before this call: disk full. The call ran; its files cannot be restored to this point."
    assert checkpoint_note({"role": "toolResult", "details": {"arborCheckpoint": note}}) == note
    assert checkpoint_note({"role": "toolResult", "details": {}}) is None
    assert checkpoint_note(None) is None
    assert file_offsets("", [FileChange("a", ChangeKind.ADDED)]) == {}


def test_the_choice_is_remembered_per_session(tmp_path: Path) -> None:
    state = UiState(tmp_path / "ui-state.json")
    state.set_files_choice("/s/a.jsonl", RestoreChoice.KEEP.value)
    again = UiState(tmp_path / "ui-state.json")
    assert again.files_choice("/s/a.jsonl") == "keep" and again.files_choice("/s/b.jsonl") is None
    again.set_files_choice("/s/a.jsonl", None)
    assert UiState(tmp_path / "ui-state.json").files_choice("/s/a.jsonl") is None


def test_reader_page_lists_the_turns_files_and_the_tool_card_says_a_missing_checkpoint(made: Checkpointed) -> None:
    from desktop_app.present.chat_render import render_message
    from desktop_app.present.chat_theme import LIGHT
    from desktop_app.present.reader import reader_page

    manager = _open(made)
    page = reader_page(manager, made.replies[2])
    assert page is not None and page.changes == "2 files +2 \u22121"
    assert page.body.endswith("Files changed by this turn:\nA extra.txt  +1 \u22120\nM notes.md  +1 \u22121")
    assert not any("arbor.checkpoint" in crumb.text for crumb in page.crumbs)  # no stops of their own
    plain = reader_page(manager, made.users[0])
    assert plain is not None and plain.changes == "" and "Files changed" not in plain.body

    note = "No checkpoint before this call: the folder <x> vanished. The call ran; its files cannot be restored to this point."
    message = {"role": "toolResult", "toolCallId": "c", "toolName": "write", "content": [{"type": "text", "text": "ok"}],
               "isError": False, "timestamp": 1, "details": {"arborCheckpoint": note}}
    html = render_message(message, LIGHT, markdown=lambda text, *, dark: [text])
    assert "No checkpoint before this call: the folder &lt;x&gt; vanished." in html  # shown closed, escaped
    del message["details"]
    assert "No checkpoint" not in render_message(message, LIGHT, markdown=lambda text, *, dark: [text])


def test_compaction_lists_the_files_changed_in_its_summarized_range(made: Checkpointed) -> None:
    from desktop_app.present.file_changes import compaction_file_lines

    manager = _open(made)
    compaction = manager.append_compaction("summary", made.users[2], 1234)
    lines = compaction_file_lines(manager.index, compaction)
    assert [line.split("  ")[0] for line in lines] == ["A notes.md"]  # turns one and two: notes.md made
    assert lines[0].endswith("+4 \u22121")


def test_has_checkpoints_scans_only_new_entries(made: Checkpointed) -> None:
    from desktop_app.present.file_changes import has_checkpoints

    empty = SessionManager.in_memory("/tmp")
    empty.append_message({"role": "user", "content": "hi", "timestamp": 1})
    assert not has_checkpoints(empty.index)
    empty.append_custom_entry(CHECKPOINT_TYPE, {"snapshot": "0" * 40})
    assert has_checkpoints(empty.index)  # found among the entries appended since
    assert has_checkpoints(_open(made).index)
    items = {i.action: i for i in node_menu(SessionManager.in_memory("/tmp"), "x", busy=False)}
    assert items == {}
