"""The restore engine in two halves (issue 25): the files on any thread, the session entry on its own.

:func:`apply_restore` plans, snapshots and writes the folder without touching the session (the window
runs it on a worker thread); :func:`record_restore` then appends the one ``restore`` checkpoint that
keeps the hand edits; :func:`restore_to` is the two in turn (``arbor restore``), with the same result.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from desktop_app.session import SessionManager
from desktop_app.workspace import store
from desktop_app.workspace.checkpoints import CHECKPOINT_TYPE, Phase, checkpoint_of
from desktop_app.workspace.restore import apply_restore, record_restore, restore_to
from desktop_app.workspace.store import RestoreFailed
from tests.checkpointed import EXTRA, V1, V3, build_checkpointed

HAND = "my own edit\n"


def _shape(manager: SessionManager, recorded: str | None, replies: tuple[str, ...]) -> tuple[object, ...]:
    """What a restore leaves in the session, entry and snapshot ids aside (each session has its own):
    the leaf and the new entry's parent as "reply N"."""
    entry = manager.get_entry(recorded) if recorded is not None else None
    checkpoint = checkpoint_of(entry) if entry is not None else None
    assert entry is None or entry.get("customType") == CHECKPOINT_TYPE
    names = {reply: f"reply {n}" for n, reply in enumerate(replies, 1)}
    return (names.get(str(manager.leaf_id)), len(manager.index.entries), entry and names.get(str(entry.get("parentId"))),
            checkpoint and checkpoint.phase, checkpoint and [(f.path, f.kind) for f in checkpoint.files])


def test_the_halves_on_two_threads_give_what_restore_to_gives(tmp_path: Path) -> None:
    shapes = []
    for name, split in (("one", False), ("two", True)):
        made = build_checkpointed(tmp_path / name)
        (made.folder / "notes.md").write_text(HAND)  # a hand edit: a restore checkpoint is recorded
        manager = SessionManager.open(made.path, fsync=False)
        before = made.path.read_bytes()
        if split:
            with ThreadPoolExecutor(1) as worker:
                applied = worker.submit(apply_restore, manager, made.replies[0]).result()
            assert made.path.read_bytes() == before and manager.leaf_id == made.replies[2]  # the session untouched
            assert (made.folder / "notes.md").read_text() == V1 and not (made.folder / "extra.txt").exists()
            assert applied.record_under == made.replies[2]
            outcome = record_restore(manager, applied)
        else:
            outcome = restore_to(manager, made.replies[0])
        assert (made.folder / "notes.md").read_text() == V1 and not (made.folder / "extra.txt").exists()
        assert outcome.plan.hand_edited == ["notes.md"]
        shapes.append((_shape(manager, outcome.recorded, made.replies), [(c.path, c.kind) for c in outcome.plan.changes]))
        manager.close()
    assert shapes[0] == shapes[1]
    (leaf, count, parent, phase, files), changes = shapes[1]
    assert leaf == "reply 3" and parent == "reply 3" and phase is Phase.RESTORE and count == 17
    assert [path for path, _ in files] == ["notes.md"] and [p for p, _ in changes] == ["extra.txt", "notes.md"]


def test_a_half_way_failure_on_the_worker_puts_the_files_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    made = build_checkpointed(tmp_path)
    real = store.write_file
    calls: list[str] = []

    def full_disk_once(path: str, data: bytes) -> None:
        calls.append(path)
        if len(calls) == 1:
            raise OSError(28, "No space left on device", path)
        real(path, data)

    monkeypatch.setattr(store, "write_file", full_disk_once)
    manager = SessionManager.open(made.path, fsync=False)
    before = made.path.read_bytes()
    with ThreadPoolExecutor(1) as worker, pytest.raises(RestoreFailed) as failed:
        worker.submit(apply_restore, manager, made.replies[0]).result()
    manager.close()
    assert failed.value.rolled_back and "put back as they were" in str(failed.value)
    assert (made.folder / "notes.md").read_text() == V3 and (made.folder / "extra.txt").read_text() == EXTRA
    assert made.path.read_bytes() == before
