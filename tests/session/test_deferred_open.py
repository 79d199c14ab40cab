"""Opening a big file from its skeleton (issue 28): the first picture's lines first, the rest later,
with the same session in the end as an ordinary open, on every recorded case."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from desktop_app.present.sessions import session_title
from desktop_app.session import SessionFileError, SessionManager, SessionReadOnlyError
from desktop_app.session import manager as manager_module
from desktop_app.session.entries import (
    make_compaction_entry,
    make_header,
    make_label_entry,
    make_message_entry,
    make_model_change_entry,
    make_session_info_entry,
    make_thinking_level_entry,
    parse_session_lines,
    sequential_ids,
    serialize_line,
)
from desktop_app.session.skeleton import PATH_ENTRIES, TOTAL_ENTRIES, scan_skeleton

from .helpers import assistant, user

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@pytest.fixture
def defer_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(SessionManager, "DEFER_MIN_BYTES", 0)


def _state(manager: SessionManager) -> dict[str, Any]:
    context = manager.build_session_context()
    return {
        "header": manager.get_header(),
        "entries": manager.get_entries(),
        "leaf": manager.leaf_id,
        "labels": manager.index.labels,
        "label_timestamps": manager.index.label_timestamps,
        "name": manager.get_session_name(),
        "context_edits": manager.index.context_edits,
        "report": manager.report,
        "read_only": manager.read_only,
        "cwd": manager.cwd,
        "messages": context.messages,
        "thinking": context.thinking_level,
        "model": context.model,
        "title": session_title(manager),
    }


@pytest.fixture
def deep_comparisons() -> Iterator[None]:
    """Room to compare the deeply nested cases' entries (``==`` recurses once per level)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(20_000)
    yield
    sys.setrecursionlimit(limit)


def test_every_recorded_case_ends_as_an_ordinary_open(
    tmp_path: Path, defer_everything: None, deep_comparisons: None
) -> None:
    """Every conformance, pi 1.6.0 and odd file: a deferred open, then its whole-file parse, gives
    what an ordinary open gives (entries, leaf, labels, report of skipped lines, context); and the
    first picture's part already holds the same leaf, labels, name and context, and only entries
    that the whole file has."""
    unique: dict[bytes, Path] = {}
    for file in sorted(FIXTURES.glob("**/*.jsonl")):
        unique.setdefault(file.read_bytes(), file)  # the pi 1.6.0 corpus repeats many 0.73.1 files
    files = list(unique.values())
    assert len(files) > 200
    deferred = 0
    for n, source in enumerate(files):
        ordinary_copy, deferred_copy = tmp_path / f"{n}a" / source.name, tmp_path / f"{n}b" / source.name
        deferred_copy.parent.mkdir()
        shutil.copyfile(source, deferred_copy)
        with sequential_ids():  # a migration's new ids: the same in both
            lazy = SessionManager.open(deferred_copy, defer=True)
        if not lazy.loading:
            continue  # opened the ordinary way
        ordinary_copy.parent.mkdir()  # only now: half the files need no second copy
        shutil.copyfile(source, ordinary_copy)
        with sequential_ids():
            ordinary = SessionManager.open(ordinary_copy)
        expected = _state(ordinary)
        if lazy.loading:
            deferred += 1
            first = _state(lazy)
            assert first["report"].malformed_lines == [], source
            for key in ("header", "leaf", "labels", "label_timestamps", "name", "context_edits", "messages",
                        "thinking", "model", "cwd", "title"):
                assert first[key] == expected[key], (source, key)
            full_entries = {entry["id"]: entry for entry in expected["entries"]}
            assert all(full_entries[entry["id"]] == entry for entry in first["entries"]), source
            assert len(first["entries"]) <= len(expected["entries"])
            lazy.load_in_background()
            assert lazy.finish_loading()
        assert not lazy.loading
        actual = _state(lazy)
        actual["report"].backup_path = expected["report"].backup_path = None  # the copies' own names
        if expected["report"].header_regenerated:  # a new header of its own (id, time) for each open
            actual["header"] = expected["header"] = None
        assert actual == expected, source
        assert deferred_copy.read_bytes() == ordinary_copy.read_bytes(), source  # the same migration, if any
    assert deferred > 100  # half the recorded files are as pi writes them (the rest: odd on purpose)
    assert deferred < len(files)  # and the others were opened the ordinary way


# ------------------------------------------------------------------------------ a big built session


def _big_session(
    path: Path, *, turns: int = 1_500, broken_line_at: int | None = None, kept_turn: int | None = None,
    late_changes: bool = False, named: bool = True,
) -> list[str]:
    """A long active path with a side branch every 50 turns, a compaction keeping from ``kept_turn``
    (default half-way) ten turns later, a thinking-level and a model change at the root (and with
    ``late_changes`` after the compaction too), labels and a name, written as pi writes them."""
    lines = list(_big_session_lines(turns, kept_turn, late_changes, named))
    if broken_line_at is not None:
        lines[broken_line_at] = lines[broken_line_at][:100] + "\n"  # a torn line far from the leaf
    path.write_text("".join(lines), encoding="utf-8")
    return lines


@functools.cache
def _big_session_lines(turns: int, kept_turn: int | None, late_changes: bool, named: bool) -> tuple[str, ...]:
    stamp = "2025-11-03T09:00:00.000Z"
    lines = [serialize_line(make_header("s-1", "/tmp/project", stamp))]
    parent: str | None = None
    counter = 0

    def add(entry: dict[str, Any]) -> str:
        nonlocal counter
        lines.append(serialize_line(entry))
        counter += 1
        return str(entry["id"])

    def new_id() -> str:
        return f"e{counter:06d}"

    parent = add(make_thinking_level_entry(new_id(), parent, stamp, "high"))
    parent = add(make_model_change_entry(new_id(), parent, stamp, "anthropic", "claude-x"))
    kept: str | None = None
    for turn in range(turns):
        asked = add(make_message_entry(new_id(), parent, stamp, user(f"question {turn}")))
        parent = add(make_message_entry(new_id(), asked, stamp, assistant(f"answer {turn}")))
        if turn % 50 == 25:
            side = add(make_message_entry(new_id(), asked, stamp, assistant(f"another answer {turn}")))
            add(make_message_entry(new_id(), side, stamp, user(f"side {turn}")))
            add(make_label_entry(new_id(), parent, stamp, side, f"side {turn}"))
        kept_at = turns // 2 if kept_turn is None else kept_turn
        if turn == kept_at:
            kept = asked
        if turn == kept_at + 10:
            assert kept is not None
            parent = add(make_compaction_entry(new_id(), parent, stamp, "summary", kept, 1234))
            if late_changes:
                parent = add(make_thinking_level_entry(new_id(), parent, stamp, "low"))
                parent = add(make_model_change_entry(new_id(), parent, stamp, "openai", "gpt-x"))
    if named:
        add(make_session_info_entry(new_id(), parent, stamp, "a big one"))
    return tuple(lines)


def test_a_deferred_open_parses_only_what_the_first_picture_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, defer_everything: None
) -> None:
    file = tmp_path / "big.jsonl"
    lines = _big_session(file)
    parsed_lines: list[int] = []

    def counting_parse(items: Any, **kwargs: Any) -> Any:
        items = list(items)
        parsed_lines.append(len(items))
        return parse_session_lines(items, **kwargs)

    monkeypatch.setattr(manager_module, "parse_session_lines", counting_parse)
    lazy = SessionManager.open(file, defer=True)
    assert lazy.loading
    # The path from the leaf up to the compaction's first kept entry (~500 entries here), the side
    # branches near the leaf, labels and name, then on up to the thinking-level and model changes.
    # Here those lie at the root: the whole active path, but no side branch far from the leaf.
    first_picture = sum(parsed_lines)
    assert first_picture < len(lines) - 1
    total_side_entries = sum(1 for line in lines if '"side ' in line or "another answer" in line)
    assert len(lazy.get_entries()) < len(lines) - 1 - total_side_entries // 2
    ordinary = SessionManager.open(file)
    assert lazy.build_session_context().messages == ordinary.build_session_context().messages
    assert lazy.build_session_context().thinking_level == "high"
    assert lazy.index.labels == ordinary.index.labels
    assert lazy.get_session_name() == "a big one"


def test_far_from_the_leaf_nothing_is_parsed_before_the_first_picture(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, defer_everything: None
) -> None:
    file = tmp_path / "big.jsonl"
    _big_session(file, turns=3_000, kept_turn=2_960, late_changes=True, named=False)
    skeleton = scan_skeleton(file.read_bytes())
    assert skeleton is not None and len(skeleton.ids) > 6_000
    parsed: list[int] = []

    def counting_parse(items: Any, **kwargs: Any) -> Any:
        items = list(items)
        parsed.append(len(items))
        return parse_session_lines(items, **kwargs)

    monkeypatch.setattr(manager_module, "parse_session_lines", counting_parse)
    lazy = SessionManager.open(file, defer=True)
    assert lazy.loading
    labels_and_name = sum(1 for kind in skeleton.types if kind in (b"label", b"session_info"))
    # the leaf's 400 entries up (its context starts 80 entries up, its thinking level and model
    # after the compaction), the side branches among them, every label and the name: nothing more
    # (+1: the compaction, read first; +3: the file's first lines up to its first user message)
    assert sum(parsed) <= PATH_ENTRIES + 2 * 10 + labels_and_name + 1 + 3
    assert len(lazy.get_entries()) < PATH_ENTRIES + 2 * 10 + labels_and_name + 3
    assert session_title(lazy) == "question 0"  # the window's title: the first user message
    context, expected = lazy.build_session_context(), SessionManager.open(file).build_session_context()
    assert context.thinking_level == "low"
    assert (context.messages, context.model) == (expected.messages, expected.model)
    assert lazy.finish_loading()
    assert lazy.get_entries() == SessionManager.open(file).get_entries()


def test_the_neighbourhood_is_what_the_canvas_shows_first(tmp_path: Path, defer_everything: None) -> None:
    """The first picture's part holds the canvas's neighbourhood of the leaf in the whole file."""
    from desktop_app.present.neighbourhood import NeighbourhoodLimits, leaf_neighbourhood

    file = tmp_path / "big.jsonl"
    _big_session(file)
    ordinary = SessionManager.open(file)
    lazy = SessionManager.open(file, defer=True)
    limits = NeighbourhoodLimits()
    assert (limits.path, limits.total) == (PATH_ENTRIES, TOTAL_ENTRIES)
    wanted = leaf_neighbourhood(ordinary.index, ordinary.leaf_id, limits)
    assert wanted and all(lazy.get_entry(entry_id) == ordinary.get_entry(entry_id) for entry_id in wanted)
    assert leaf_neighbourhood(lazy.index, lazy.leaf_id, limits) == wanted


def test_skipped_lines_are_reported_once_the_whole_file_is_read(tmp_path: Path, defer_everything: None) -> None:
    file = tmp_path / "big.jsonl"
    _big_session(file, turns=3_000, kept_turn=2_960, late_changes=True, broken_line_at=40)
    lazy = SessionManager.open(file, defer=True)
    assert lazy.loading and lazy.report.malformed_lines == []
    events: list[Any] = []
    lazy.subscribe(events.append)
    lazy.finish_loading()
    assert lazy.report.malformed_lines == SessionManager.open(file).report.malformed_lines == [41]
    assert lazy.get_entries() == SessionManager.open(file).get_entries()
    assert [type(e).__name__ for e in events] == ["Reloaded"]


def test_lines_another_writer_appends_meanwhile_are_in_the_whole_parse(tmp_path: Path, defer_everything: None) -> None:
    file = tmp_path / "big.jsonl"
    _big_session(file)
    lazy = SessionManager.open(file, defer=True)
    assert lazy.poll_external_changes() == []  # they wait for the whole parse, which reads them
    leaf = lazy.leaf_id
    with file.open("a", encoding="utf-8") as out:
        out.write(serialize_line(make_message_entry("other-1", leaf, "2025-11-03T10:00:00.000Z", user("hi"))))
    lazy.finish_loading()
    assert lazy.leaf_id == "other-1" and lazy.get_entry("other-1") is not None
    assert lazy.poll_external_changes() == []


def test_writing_first_installs_the_whole_file(tmp_path: Path, defer_everything: None) -> None:
    file = tmp_path / "big.jsonl"
    _big_session(file)
    before = SessionManager.open(file).get_entries()
    lazy = SessionManager.open(file, defer=True)
    leaf = lazy.leaf_id
    new_id = lazy.append_message(user("one more"))
    assert not lazy.loading
    assert lazy.get_entries()[:-1] == before
    assert lazy.get_entry(new_id)["parentId"] == leaf  # type: ignore[index]
    assert SessionManager.open(file).get_entries() == lazy.get_entries()


def test_files_the_skeleton_cannot_vouch_for_open_the_ordinary_way(tmp_path: Path, defer_everything: None) -> None:
    file = tmp_path / "big.jsonl"
    lines = _big_session(file, turns=40)
    text = "".join(lines)
    variants = {
        "no final newline": text[:-1],
        "keys in another order": text + '{"id":"x","type":"label","parentId":null}\n',
        "a blank line": "".join([*lines[:5], "\n", *lines[5:]]),
        "a duplicate id": text + lines[-1],
        "an old format": text.replace('"version":3', '"version":2', 1),
    }
    for why, variant in variants.items():
        file.write_text(variant, encoding="utf-8")
        assert not SessionManager.open(file, defer=True).loading, why
    file.write_text(text, encoding="utf-8")
    assert SessionManager.open(file, defer=True).loading
    assert not SessionManager.open(file).loading


def test_a_fifo_is_refused_as_an_ordinary_open_refuses_it(tmp_path: Path, defer_everything: None) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(SessionFileError, match="not a regular file"):
        SessionManager.open(fifo, defer=True)  # never hangs waiting for a writer


def test_another_writer_s_branch_appended_meanwhile_does_not_take_our_next_message(
    tmp_path: Path, defer_everything: None
) -> None:
    """Another program (a real second process) appends on another branch while the whole file is
    parsed: our next message goes under the leaf we were shown, as after an ordinary open."""
    file = tmp_path / "big.jsonl"
    _big_session(file, turns=300)
    lazy = SessionManager.open(file, defer=True)
    shown_leaf = lazy.leaf_id
    elsewhere = lazy.get_branch()[5]["id"]
    line = serialize_line(make_message_entry("other-1", elsewhere, "2025-11-03T10:00:00.000Z", user("elsewhere")))
    code = "import sys; open(sys.argv[1], 'a', encoding='utf-8').write(sys.argv[2])"
    subprocess.run([sys.executable, "-c", code, str(file), line], check=True)
    mine = lazy.append_message(user("mine"))
    assert lazy.get_entry("other-1") is not None  # read, not lost
    assert lazy.get_entry(mine)["parentId"] == shown_leaf  # type: ignore[index]
    assert SessionManager.open(file).get_entry(mine)["parentId"] == shown_leaf  # type: ignore[index]


def test_an_unexpected_error_in_the_whole_parse_is_reported_and_nothing_is_written(
    tmp_path: Path, defer_everything: None, caplog: pytest.LogCaptureFixture
) -> None:
    file = tmp_path / "big.jsonl"
    _big_session(file, turns=300)
    before = file.read_bytes()
    lazy = SessionManager.open(file, defer=True)
    shown = lazy.get_entries()

    def broken() -> SessionManager:
        raise RuntimeError("a bug in the parser")

    lazy._full_load._open_full = broken  # type: ignore[union-attr]
    events: list[Any] = []
    lazy.subscribe(events.append)
    lazy.load_in_background()
    assert lazy.finish_loading() is True  # no exception escapes to the event loop
    assert not lazy.loading and lazy.read_only and lazy.get_entries() == shown  # what was shown stays
    assert "a bug in the parser" in (lazy.report.error or "")
    assert [type(e).__name__ for e in events] == ["SessionFailed"]
    assert "a bug in the parser" in caplog.text  # with its traceback, for the bug report
    with pytest.raises(SessionReadOnlyError):
        lazy.append_message(user("lost?"))
    assert file.read_bytes() == before


def test_the_parsed_index_is_prepared_on_the_worker_before_it_is_handed_over(
    tmp_path: Path, defer_everything: None, caplog: pytest.LogCaptureFixture
) -> None:
    """``load_in_background(prepare=...)`` reads the whole index on the parse's thread, before
    ``on_done``: what the first paint after the install would otherwise scan on the UI thread
    (issue 28). Its error is logged; the load goes on."""
    import threading

    file = tmp_path / "big.jsonl"
    _big_session(file, turns=300)
    whole = SessionManager.open(file).get_entries()
    seen: list[tuple[str, int]] = []
    done = threading.Event()

    def prepare(index: Any) -> None:
        seen.append((threading.current_thread().name, len(index.entries)))
        raise ValueError("only a head start")

    lazy = SessionManager.open(file, defer=True)
    lazy.load_in_background(lambda: (seen.append(("done", 0)), done.set()), prepare)
    assert done.wait(30)
    assert seen == [("arbor-open", len(whole)), ("done", 0)]
    assert lazy.finish_loading() is True and lazy.get_entries() == whole and not lazy.read_only
    assert "only a head start" in caplog.text
