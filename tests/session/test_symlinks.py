"""A session opened through a symbolic link (issue 23 item 2).

Writes, locks, rewrites and backups go to the file the link points to (resolved once, chains
included); the link stays a link, and the path the user opened is the one shown. A link that points
nowhere is a clear error, not a new session written somewhere unexpected.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from desktop_app.session import SessionFileError, SessionManager
from desktop_app.session.store import SessionStore

from .helpers import assistant

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "conformance"


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _v1_behind_links(tmp_path: Path, hops: int) -> tuple[Path, Path]:
    """``real/real.jsonl`` (pi's v1 corpus file) and a chain of ``hops`` links to it in ``links/``."""
    real_dir, link_dir = tmp_path / "real", tmp_path / "links"
    real_dir.mkdir()
    link_dir.mkdir()
    real = real_dir / "real.jsonl"
    shutil.copyfile(FIXTURES / "mig-v1-basic.jsonl", real)
    target = real
    for n in range(hops):
        link = link_dir / f"link{n}.jsonl"
        link.symlink_to(target)
        target = link
    return real, target


@pytest.mark.parametrize("hops", [1, 2])
def test_a_v1_file_behind_a_link_is_migrated_and_continued_in_place(tmp_path: Path, hops: int) -> None:
    real, link = _v1_behind_links(tmp_path, hops)
    manager = SessionManager.open(link, fsync=False)
    assert manager.report.migrated and manager.report.error is None and not manager.read_only
    assert manager.session_file == str(link)  # the path the user opened is the one shown

    assert link.is_symlink() and os.path.realpath(link) == str(real)  # the link is still a link ...
    assert _lines(real)[0]["version"] == 3  # ... and the file it points to was migrated
    backup = manager.report.backup_path
    assert backup is not None and backup.parent == real.parent and backup.name.startswith("real.jsonl.bak-")
    assert sorted(p.name for p in link.parent.iterdir()) == sorted(f"link{n}.jsonl" for n in range(hops))

    entry_id = manager.append_message(assistant("the reply"))
    assert _lines(real)[-1]["id"] == entry_id  # appends go to the real file
    again = SessionManager.open(link, fsync=False)
    assert again.leaf_id == entry_id and not again.report.migrated
    assert SessionManager.open(real, fsync=False).leaf_id == entry_id


def test_a_link_to_a_v3_file_is_appended_through(tmp_path: Path) -> None:
    real = tmp_path / "real.jsonl"
    shutil.copyfile(FIXTURES / "edge-header-only.jsonl", real)
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    manager = SessionManager.open(link, fsync=False)
    entry_id = manager.append_message(assistant("hello"))
    assert link.is_symlink() and _lines(real)[-1]["id"] == entry_id
    assert manager.poll_external_changes() == []  # our own append, read back through the link, is known


def test_the_store_locks_and_rewrites_the_file_the_link_points_to(tmp_path: Path) -> None:
    real = tmp_path / "real.jsonl"
    real.write_text('{"a":1}\n')
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    store = SessionStore(link, fsync=False)
    with store.locked():
        backup = store.rewrite('{"b":2}\n')
    with store.locked():  # the lock follows the rename: it is taken on the new file
        store.append('{"c":3}\n')
    assert link.is_symlink() and real.read_text() == '{"b":2}\n{"c":3}\n'
    assert backup is not None and backup.parent == real.parent and backup.read_text() == '{"a":1}\n'
    assert store.changed_on_disk() is None
    assert store.path == link  # what is shown


@pytest.mark.parametrize("chain", [1, 2])
def test_a_dangling_link_is_a_clear_error(tmp_path: Path, chain: int) -> None:
    target = tmp_path / "gone" / "session.jsonl"
    link = tmp_path / "link0.jsonl"
    link.symlink_to(target)
    for n in range(1, chain):
        nxt = tmp_path / f"link{n}.jsonl"
        nxt.symlink_to(link)
        link = nxt
    with pytest.raises(SessionFileError) as caught:
        SessionManager.open(link, fsync=False)
    message = str(caught.value)
    assert str(link) in message and "symbolic link" in message and str(target) in message
    assert not target.parent.exists()  # nothing was created where the link points


def test_the_link_and_the_real_path_share_one_lock(tmp_path: Path) -> None:
    real = tmp_path / "real.jsonl"
    real.write_text('{"a":1}\n')
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    through_link, direct = SessionStore(link, fsync=False), SessionStore(real, fsync=False)
    with through_link.locked():
        with pytest.raises(SessionFileError, match="locked by another writer"), direct.locked(timeout=0.05):
            pass
        through_link.rewrite('{"b":2}\n')
    # After the rename the lock is taken on the new file, by either path.
    with direct.locked():
        with pytest.raises(SessionFileError, match="locked by another writer"), through_link.locked(timeout=0.05):
            pass


def test_a_loop_of_links_is_a_clear_error(tmp_path: Path) -> None:
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.symlink_to(second)
    second.symlink_to(first)
    with pytest.raises(SessionFileError, match="Too many levels of symbolic links") as caught:
        SessionManager.open(first, fsync=False)
    assert str(first) in str(caught.value)
