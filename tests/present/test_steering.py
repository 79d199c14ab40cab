"""issue 9, Qt-free: the node menu's rules, drafts per session, the context meter that never jumps
down while the context grows, leaf-move undo, the compaction and branch-summary previews, the reader."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from desktop_app.compaction.prepare import prepare_compaction
from desktop_app.compaction.tokens import CompactionSettings, estimate_tokens
from desktop_app.present.branch_preview import preview_branch_summary
from desktop_app.present.compaction_preview import planned_ids, preview_compaction
from desktop_app.present.context_meter import ContextMeterState
from desktop_app.present.drafts import Drafts, draft_key
from desktop_app.present.leaf_history import LeafHistory
from desktop_app.present.node_menu import BUSY, MenuAction, node_menu
from desktop_app.present.reader import context_page, reader_page
from desktop_app.present.rubber_band import band_selection, nodes_in_rect
from desktop_app.present.siblings import sibling_switches
from desktop_app.present.viewgraph import ViewGraph, ViewNode
from desktop_app.session import SessionManager
from desktop_app.session.profile import PI_0_73_1


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}


def _assistant(text: str, tokens: int | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": "m",
        "stopReason": "stop",
        "timestamp": 2,
    }
    if tokens is not None:
        message["usage"] = {"input": tokens, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": tokens}
    return message


@pytest.fixture
def tree() -> tuple[SessionManager, dict[str, str]]:
    """u1 ─ a1 ─ u2 ─ a2 (leaf), and a1 ─ u3 ─ a3 on the side; a1 is labelled."""
    m = SessionManager.in_memory("/tmp")
    ids: dict[str, str] = {}
    ids["u1"] = m.append_message(_user("first question " * 20))
    ids["a1"] = m.append_message(_assistant("first answer " * 20))
    ids["u3"] = m.append_message(_user("side question"))
    ids["a3"] = m.append_message(_assistant("side answer"))
    m.branch(ids["a1"])
    ids["u2"] = m.append_message(_user("second question\nwith two lines"))
    ids["a2"] = m.append_message(_assistant("second answer"))
    m.append_label_change(ids["a1"], "checkpoint")
    ids["leaf"] = str(m.leaf_id)
    return m, ids


def _items(m: SessionManager, entry_id: str, busy: bool = False) -> dict[MenuAction, Any]:
    return {item.action: item for item in node_menu(m, entry_id, busy=busy)}


def test_menu_offers_fork_on_user_messages_and_clone_on_anything_with_reasons(tree: Any) -> None:
    m, ids = tree
    on_assistant = _items(m, ids["a1"])
    assert not on_assistant[MenuAction.FORK].enabled
    assert "Clone" in on_assistant[MenuAction.FORK].reason  # says what to do instead
    assert on_assistant[MenuAction.CLONE].enabled
    assert on_assistant[MenuAction.REGENERATE].enabled
    assert not on_assistant[MenuAction.EDIT_BRANCH].enabled
    assert on_assistant[MenuAction.CLEAR_LABEL].enabled  # a1 carries a label
    on_user = _items(m, ids["u2"])
    assert on_user[MenuAction.FORK].enabled and on_user[MenuAction.EDIT_BRANCH].enabled
    assert not on_user[MenuAction.REGENERATE].enabled
    assert not on_user[MenuAction.CLEAR_LABEL].enabled and on_user[MenuAction.CLEAR_LABEL].reason
    on_leaf = _items(m, m.leaf_id)
    assert not on_leaf[MenuAction.CONTINUE].enabled and "already" in on_leaf[MenuAction.CONTINUE].reason
    busy = _items(m, ids["a3"], busy=True)
    for action in (MenuAction.CONTINUE, MenuAction.REGENERATE, MenuAction.CLONE):
        assert not busy[action].enabled and busy[action].reason == BUSY
    assert busy[MenuAction.COPY_TEXT].enabled and busy[MenuAction.SHOW_CONTEXT].enabled
    assert [i.action for i in node_menu(m, ids["u1"], busy=False)] == list(MenuAction)
    assert node_menu(m, "nope", busy=False) == ()


def test_drafts_belong_to_their_session() -> None:
    drafts = Drafts()
    assert drafts.switch(draft_key("/a.jsonl", "A"), "") == ""
    assert drafts.switch(draft_key("/b.jsonl", "B"), "typed in A") == ""  # B has none
    assert drafts.switch(draft_key(None, "C"), "typed in B") == ""
    assert drafts.switch(draft_key("/a.jsonl", "A"), "") == "typed in A"
    assert drafts.draft(draft_key("/b.jsonl", "B")) == "typed in B"
    assert drafts.switch(draft_key("/a.jsonl", "A"), "still A") == "still A"  # same session: unchanged
    assert drafts.switch(draft_key("/b.jsonl", "B"), "  ") == "typed in B"
    assert drafts.draft(draft_key("/a.jsonl", "A")) == ""  # blank text is no draft


def _path(*ids: str) -> list[dict[str, str]]:
    """Path entries; an id starting with "k" is a compaction."""
    return [{"id": i, "type": "compaction" if i.startswith("k") else "message"} for i in ids]


def test_meter_never_goes_down_while_the_path_only_grows() -> None:
    meter = ContextMeterState()
    messages = [_user("hello"), _assistant("hi", tokens=1380)]
    first = meter.read(_path("a", "b"), 1380, messages)
    assert first.tokens == 1380 and not first.floored and "1.4k reported" in first.explanation
    grown = meter.read(_path("a", "b", "c", "d"), 696, messages)
    assert grown.tokens == 1380 and grown.floored and "696" in grown.explanation
    assert meter.read(_path("a", "b", "c", "d", "e"), 2000, messages).tokens == 2000
    switched = meter.read(_path("a", "x"), 500, messages)  # another branch: afresh
    assert switched.tokens == 500 and not switched.floored
    longer = meter.read(_path("a", "y", "z"), 400, messages)  # longer, but not through x: afresh
    assert longer.tokens == 400 and not longer.floored
    rooted = meter.read(_path("r", "y", "z", "w"), 300, messages)  # another root, same ids below
    assert rooted.tokens == 300 and not rooted.floored
    meter.read(_path("a", "x"), 500, messages)
    compacted = meter.read(_path("a", "x", "k", "y"), 100, messages)
    assert compacted.tokens == 100  # a compaction may shrink it
    compacted_now = meter.read(_path("a", "x", "k", "y", "z"), None, messages)  # pi: "?"; an estimate here
    assert compacted_now.estimated and compacted_now.tokens == sum(estimate_tokens(m) for m in messages) > 0
    assert "just compacted" in compacted_now.explanation
    reported = meter.read(_path("a", "x", "k", "y", "z", "w"), 1, messages)
    assert reported.tokens == 1 and not reported.floored  # an estimate is no floor for the real size
    meter.reset()
    assert meter.read(_path("a", "x", "k", "y", "z", "q"), 50, messages).tokens == 50  # another session
    estimate = ContextMeterState().read(_path("a"), 10, [_user("x" * 40)])
    assert "4 characters per token" in estimate.explanation and "no reply" in estimate.explanation


def test_the_meter_s_estimate_survives_a_message_pi_would_count_as_nan() -> None:
    """A branch summary whose summary is a number (a hand-edited file) weighs NaN by pi's
    arithmetic: the window's meter raised on it ("cannot convert float NaN to integer") and the
    window could not open the file. It counts 0, as elsewhere in the app."""
    odd = {"role": "branchSummary", "summary": 5, "fromId": "x", "timestamp": 1}
    reading = ContextMeterState().read(_path("a", "k", "b"), None, [_user("x" * 40), odd])
    assert reading.estimated and reading.tokens == estimate_tokens(_user("x" * 40))


def test_the_meter_reads_the_context_branch_as_it_reads_the_whole_branch() -> None:
    """The window hands the meter the end of the branch the context is built from (a few hundred
    entries instead of 70,000): every reading must be the one the whole branch gives."""
    manager = SessionManager.in_memory("/p")
    whole, tail = ContextMeterState(), ContextMeterState()
    messages = [_user("hello")]
    tokens = iter([900, 800, 1000, 700, 600, 500, 1200, 400, 300, 200, 100, 50, 40, 30])

    def read() -> None:
        n = next(tokens)
        assert tail.read(manager.get_context_branch(), n, messages) == whole.read(manager.get_branch(), n, messages)

    ids = [manager.append_message(_user(f"q{i}")) for i in range(4)]
    read()
    manager.append_message(_assistant("a"))
    read()  # grew: the larger reading stays
    manager.append_compaction("summary", ids[2], 5000)
    read()  # a compaction: afresh
    after = manager.append_message(_user("after"))
    read()
    manager.append_message(_assistant("b"))
    read()  # grew past the compaction: the larger stays
    manager.append_compaction("again", after, 6000)
    read()
    manager.branch(ids[1])  # back above both compactions: the context branch is the whole branch
    read()
    manager.append_message(_user("elsewhere"))
    read()
    manager.branch(after)
    read()
    assert manager.get_context_branch()[0]["id"] == ids[2]  # the walk did stop early


def test_leaf_history_undo_redo() -> None:
    history = LeafHistory()
    assert history.undo() is None and not history.can_undo
    history.record("a", "b")
    history.record("b", "c")
    history.record(None, "x")  # not undoable: ignored
    assert history.undo() == "b" and history.undo() == "a" and not history.can_undo
    assert history.redo() == "b" and history.can_redo
    history.record("b", "z")  # a new move forgets the redo
    assert not history.can_redo and history.undo() == "b"


def test_compaction_preview_is_prepare_compactions_plan(tree: Any) -> None:
    m, ids = tree
    settings = CompactionSettings(keep_recent_tokens=10)
    preview = preview_compaction(m, settings)
    path = m.get_branch()
    prep = prepare_compaction(path, settings)
    assert prep is not None and preview.runnable
    planned = planned_ids(prep, path)
    assert preview.summarized_ids == tuple(planned[prep.boundary_start : prep.first_kept_entry_index])
    assert preview.kept_ids == tuple(planned[prep.first_kept_entry_index : prep.boundary_end])
    assert preview.first_kept_entry_id == prep.first_kept_entry_id == preview.kept_ids[0]
    assert preview.summarized_ids and set(preview.summarized_ids) <= {e["id"] for e in path}
    old_rules = preview_compaction(m, settings, PI_0_73_1)  # 0.73.1 plans on the path itself
    prep_old = prepare_compaction(path, settings, PI_0_73_1)
    assert prep_old is not None and prep_old.projected is None
    assert old_rules.kept_ids[0] == prep_old.first_kept_entry_id
    audit = preview.as_audit()
    assert audit.summarized_ids == preview.summarized_ids and audit.cut_before_id == preview.first_kept_entry_id
    assert "would be replaced by a summary" in preview.describe()
    nothing = preview_compaction(m, CompactionSettings(keep_recent_tokens=100_000))
    assert not nothing.runnable and nothing.describe().startswith("Nothing would be summarized")
    assert not preview_compaction(SessionManager.in_memory("/tmp"), settings).runnable


def test_compaction_preview_of_a_branch_pi_cannot_plan_says_why(tmp_path: Path) -> None:
    """An edit of another shape (pi would refuse to write it; a file may hold it) leaves an assistant
    message without content: pi 1.6.0's ``prepareCompaction`` throws on it, and the preview says so
    instead of failing."""
    t = "2026-01-01T00:00:00.000Z"
    lines = [
        {"type": "session", "version": 3, "id": "s", "timestamp": t, "cwd": "/tmp"},
        {"type": "message", "id": "e1", "parentId": None, "timestamp": t, "message": {"role": "user", "content": "hi", "timestamp": 1}},
        {"type": "message", "id": "e2", "parentId": "e1", "timestamp": t, "message": {"role": "assistant", "content": [], "timestamp": 2}},
        {"type": "context_edit", "id": "e3", "parentId": "e2", "timestamp": t, "targetId": "e2", "replacement": 5},
        {"type": "message", "id": "e4", "parentId": "e3", "timestamp": t, "message": {"role": "user", "content": "again", "timestamp": 3}},
    ]
    path = tmp_path / "odd.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    m = SessionManager.open(path)
    preview = preview_compaction(m, CompactionSettings(keep_recent_tokens=1), m.profile)
    assert not preview.runnable and preview.nothing_reason is not None and "cannot be read" in preview.nothing_reason


def test_branch_summary_preview_names_the_abandoned_branch(tree: Any) -> None:
    m, ids = tree
    preview = preview_branch_summary(m, ids["a3"])  # leaving u2 ─ a2 ─ label for the side branch
    assert ids["u2"] in preview.entry_ids and ids["a2"] in preview.entry_ids and ids["a1"] not in preview.entry_ids
    assert preview.message_count == 2 and preview.tokens > 0
    assert preview.first_text.startswith("second question") and preview.last_text == "second answer"
    assert "2 messages" in preview.describe()
    assert preview.as_audit().summarized_ids == preview.entry_ids
    m.branch(ids["a1"])
    assert preview_branch_summary(m, ids["a2"]).empty  # going down the same branch: nothing to summarize


def test_reader_page_and_context(tree: Any) -> None:
    m, ids = tree
    page = reader_page(m, ids["u3"])
    assert page is not None and page.body == "side question"
    assert [c.entry_id for c in page.crumbs] == [ids["u1"], ids["a1"], ids["u3"]]
    assert "another branch" in page.status and page.can_continue
    assert reader_page(m, m.leaf_id or "").can_continue is False  # type: ignore[union-attr]
    labelled = reader_page(m, ids["a1"])
    assert labelled is not None and "checkpoint" in labelled.title and labelled.status == "On the active path"
    context = context_page(m, ids["u2"])
    assert context is not None and "receives 3 message(s)" in context.body


def test_rubber_band_counts_entries_and_tokens(tree: Any) -> None:
    m, ids = tree
    graph = ViewGraph(
        nodes={"n1": ViewNode("segment", "x", (ids["u1"], ids["a1"])), "n2": ViewNode("user", "y", (ids["u2"],))},
        parent={},
        children={"n1": [], "n2": []},
        roots=["n1", "n2"],
    )
    positions = {"n1": (0.0, 0.0), "n2": (100.0, 50.0), "n3": (500.0, 500.0)}
    assert nodes_in_rect(positions, 120, 60, -10, -10) == ["n1", "n2"]
    chosen = band_selection(m, graph, ["n1", "n2", "n3"])
    assert chosen.entry_ids == (ids["u1"], ids["a1"], ids["u2"])
    assert chosen.tokens > 0 and chosen.describe().startswith("3 entries selected")


def test_sibling_switches_sit_on_the_first_message_of_the_active_branch(tree: Any) -> None:
    m, ids = tree
    [switch] = sibling_switches(m)
    assert switch.entry_id == ids["u2"] and switch.message is m.get_entry(ids["u2"])["message"]  # type: ignore[index]
    assert (switch.index, switch.count, switch.text) == (2, 2, "2/2")
    assert switch.previous_leaf == ids["a3"] and switch.next_leaf is None
    m.branch(ids["u3"])
    newer = m.append_message(_assistant("a newer side answer"))
    m.branch(ids["a3"])
    first, second = sibling_switches(m)
    assert (first.entry_id, first.index, first.next_leaf) == (ids["u3"], 1, ids["leaf"])  # the label after a2
    assert (second.entry_id, second.index, second.previous_leaf, second.next_leaf) == (ids["a3"], 1, None, newer)
    m.branch(ids["a1"])
    assert sibling_switches(m) == []  # the path ends at the branch point: nothing to switch yet


def test_sibling_switches_only_for_messages_the_chat_shows(tree: Any) -> None:
    m, ids = tree
    m.branch(ids["u3"])
    m.append_message(_assistant("a newer side answer"))
    m.branch(ids["a3"])
    both = sibling_switches(m)
    assert len(both) == 2
    shown = {id(both[1].message)}  # the chat shows only the second switch's message
    assert [s.entry_id for s in sibling_switches(m, shown)] == [both[1].entry_id]
    assert sibling_switches(m, set()) == []


def test_sibling_cache_is_reused_until_the_session_grows(tree: Any) -> None:
    from desktop_app.present.siblings import SiblingCache

    m, ids = tree
    cache = SiblingCache()
    [first] = sibling_switches(m, cache=cache)
    [(sibling, leaf)] = cache.newest.items()  # the one newest leaf searched, kept
    assert leaf == first.previous_leaf
    cache.newest[sibling] = "stale"  # reused while nothing is appended ...
    assert sibling_switches(m, cache=cache)[0].previous_leaf == "stale"
    m.append_message(_assistant("one more"))  # ... and after an append outside that subtree (no new search)
    assert sibling_switches(m, cache=cache)[0].previous_leaf == "stale"
    other = SessionManager.in_memory("/tmp")
    other.append_message(_user("another file"))
    cache.check(other)
    assert cache.newest == {} and cache.order == {}  # not an append to the same file: afresh


def _sibling_tree(m: SessionManager) -> list[str]:
    """Three branch points on one path, each with an older side branch; returns the side leaves."""
    sides = []
    m.append_message(_user("root"))
    for i in range(3):
        point = m.append_message(_assistant(f"point {i}"))
        side = m.append_message(_user(f"side {i}"))
        sides.append(m.append_message(_assistant(f"side answer {i}")))
        m.branch(point)
        m.append_message(_user(f"main {i}"))
        _ = side
    m.append_message(_assistant("main answer"))
    return sides


def test_sibling_cache_kept_across_appends_equals_a_fresh_computation() -> None:
    """Appends at the leaf, under a cached side branch (even at an entry older than its newest leaf)
    and on a new branch: the kept cache answers what a fresh one computes, and an append at the
    active leaf searches no subtree again (the old cache reset on every append)."""
    import desktop_app.present.siblings as siblings

    m = SessionManager.in_memory("/tmp")
    sides = _sibling_tree(m)
    cache = siblings.SiblingCache()
    assert sibling_switches(m, cache=cache) == sibling_switches(m)
    searches = 0
    original = siblings.newest_leaf

    def counting(*args: Any) -> str:
        nonlocal searches
        searches += 1
        return original(*args)

    siblings.newest_leaf = counting  # type: ignore[assignment]
    branch_walks: list[object] = []
    walk = m.get_branch

    def counted_walk(from_id: str | None = None) -> list[Any]:
        branch_walks.append(from_id)
        return walk(from_id)

    m.get_branch = counted_walk  # type: ignore[method-assign]
    try:
        for step in range(6):  # a reply streaming at the active leaf (one entry, or a few at once)
            for _ in range(1 + step % 3):
                m.append_message(_assistant(f"streamed {step}"))
            before, walks = searches, len(branch_walks)
            kept = sibling_switches(m, cache=cache)
            assert searches == before  # the kept cache searched no subtree again
            assert len(branch_walks) == walks  # nor walked the active path again
            assert kept == sibling_switches(m, cache=siblings.SiblingCache())
            assert searches > before and len(branch_walks) > walks  # (a fresh cache does: the counts can fail)
            shown = {id(e["message"]) for e in m.get_branch()[-7:] if "message" in e} | {id(object())}
            assert sibling_switches(m, shown, cache) == sibling_switches(m, shown)
        leaf = m.leaf_id
        m.branch(sides[1])  # grow a side branch: its newest leaf moves
        newer = m.append_message(_user("side grows"))
        m.branch(m.get_entry(sides[0])["parentId"])  # type: ignore[index]
        m.append_message(_user("an older entry gets a new child"))
        m.branch(leaf)
        fresh = sibling_switches(m, cache=siblings.SiblingCache())
        assert sibling_switches(m, cache=cache) == fresh
        assert newer in {s.previous_leaf for s in fresh}
    finally:
        siblings.newest_leaf = original  # type: ignore[assignment]


def test_the_first_shown_message_is_found_from_the_leaf_up_to_the_kept_part_only() -> None:
    """The chat shows the context: after a compaction, its summary (no entry's message) and the
    messages from the first kept entry on. Looking for the first shown one walks up from the leaf
    and stops at the first kept entry: never the whole path (72,000 entries at 100,000), and never
    an entry above it."""
    from desktop_app.present.siblings import SiblingCache

    m = SessionManager.in_memory("/tmp")
    for i in range(30):
        m.append_message(_user(f"old question {i}"))
        m.append_message(_assistant(f"old answer {i}"))
    kept = m.append_message(_user("kept question"))
    m.append_message(_assistant("kept answer"))
    m.append_compaction("summary", kept, 1000)
    m.append_message(_user("new question"))
    m.append_message(_assistant("new answer"))
    context = m.build_session_context().messages
    shown = {id(message) for message in context}
    cache = SiblingCache()
    cache.check(m)
    path = cache.branch(m)
    at_kept = next(i for i, e in enumerate(path) if e.get("id") == kept)
    assert cache.first_shown(shown) == at_kept
    assert cache.first_shown({id(context[-1])}) == len(path) - 1
    assert cache.first_shown(set()) == len(path)

    class Untouchable(dict):  # type: ignore[type-arg]
        def get(self, *args: Any) -> Any:
            raise AssertionError("read an entry above the first kept one")

    for i in range(at_kept):
        path[i] = Untouchable(path[i])
    assert cache.first_shown(shown) == at_kept  # the summary was never found, and nothing above read


def test_sibling_switches_in_steps_yield_and_answer_as_at_once() -> None:
    """Issue 28: the search behind the sibling arrows runs a slice per event-loop turn. Stepped
    every entry or two, it yields many times and answers exactly what the one-go search does (the
    path walked up entry by entry equals get_branch; newest leaves and file order as before)."""
    from desktop_app.present.siblings import SiblingCache, _drain, sibling_switches_in_steps

    m = SessionManager.in_memory("/tmp")
    _sibling_tree(m)
    m.branch(m.get_branch()[3]["id"])  # a leaf deeper in, then more on the active path
    m.append_message(_user("after a move"))
    at_once = sibling_switches(m)
    assert at_once  # branch points to step through
    for every in (1, 2, 7):
        steps = sibling_switches_in_steps(m, None, SiblingCache(), every)
        yields = 0
        while True:
            try:
                next(steps)
            except StopIteration as done:
                assert done.value == at_once
                break
            yields += 1
        assert yields >= len(m.get_entries()) // every  # walked in slices, not in one go
    cache = SiblingCache()
    assert _drain(cache.branch_in_steps(m, 1)) == m.get_branch()
