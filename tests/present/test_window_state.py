"""``UiState``'s leaf writes wait for their moment (one file write per moment, not per entry) and are
made on a worker thread; the newest state is always the one left on disk."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from desktop_app.present.window_state import UiState


def _leaves(path: Path) -> dict[str, str]:
    return dict(json.loads(path.read_text(encoding="utf-8"))["leaves"]) if path.exists() else {}


def test_leaf_changes_are_written_once_when_their_moment_comes(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    state = UiState(path)
    due: list[Callable[[], None]] = []
    state.write_leaves_later(due.append)
    for leaf in ("a", "b", "c"):
        state.remember_leaf("/s.jsonl", leaf)
    assert not path.exists() and len(due) == 1  # one write asked for, none made yet
    due[0]()
    state.wait_written()
    assert _leaves(path) == {"/s.jsonl": "c"}
    path.unlink()
    due[0]()  # nothing new: no second write
    state.wait_written()
    assert not path.exists()
    state.remember_leaf("/s.jsonl", "d")
    assert len(due) == 2 and not path.exists()
    state.set_flag("panel", True)  # any other change writes everything, the waiting leaf too
    assert _leaves(path) == {"/s.jsonl": "d"}
    due[1]()  # nothing is waiting any more
    state.wait_written()
    assert _leaves(path) == {"/s.jsonl": "d"}
    assert UiState(path).last_leaf("/s.jsonl") == "d"


def test_without_a_scheduler_a_leaf_is_written_at_once(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    state = UiState(path)
    state.remember_leaf("/s.jsonl", "a")
    assert _leaves(path) == {"/s.jsonl": "a"}
    state.write_leaves_later(lambda flush: None)
    state.remember_leaf("/s.jsonl", "b")
    state.flush()
    assert _leaves(path) == {"/s.jsonl": "b"}


def test_an_older_state_never_overwrites_a_newer_one(tmp_path: Path) -> None:
    """A background write that comes late (its thread was slow) must not undo a newer write."""
    path = tmp_path / "state.json"
    state = UiState(path)
    state.remember_leaf("/s.jsonl", "old")
    older = state._snapshot()
    state.remember_leaf("/s.jsonl", "new")  # written at once (no scheduler)
    state._store(*older)
    assert _leaves(path) == {"/s.jsonl": "new"}
