"""The checkpoint store of one working folder (issue 25 items 1 and 5): what a snapshot holds,
that only changed files are read, diffs, and restores that can be undone or roll back."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from desktop_app.workspace import ChangeKind, RestoreFailed, Workspace, WorkspaceError
from desktop_app.workspace import store as store_module
from desktop_app.workspace.paths import workspaces_root


def _write(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


def _listing(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (ignored ones too) with its bytes: the user's folder as it is."""
    out: dict[str, bytes] = {}
    for dirpath, _dirs, names in os.walk(root):
        for name in names:
            path = Path(dirpath) / name
            out[path.relative_to(root).as_posix()] = os.readlink(path).encode() if path.is_symlink() else path.read_bytes()
    return out


def _later(monkeypatch: pytest.MonkeyPatch) -> None:
    """Snapshots taken as if a few seconds had passed: files written so far are past the racy window
    (store.RACY_NS) and trusted from their stat, as a real project's files are."""
    monkeypatch.setattr(store_module, "clock_ns", lambda: time.time_ns() + 2 * store_module.RACY_NS)


def test_a_snapshot_holds_what_git_would_track_and_nothing_lands_in_the_folder(tmp_path: Path) -> None:
    folder = tmp_path / "project"
    _write(folder, {
        ".gitignore": "build/\n*.log\n!keep.log\n",
        "src/a.py": "print('a')\n",
        "src/.gitignore": "generated.py\n",
        "src/generated.py": "x = 1\n",
        "build/out.bin": "ignored",
        "run.log": "ignored",
        "keep.log": "kept",
        "big.dat": "x" * 200,
        ".git/HEAD": "ref: refs/heads/main\n",  # the user's own repository: never read
        "lib/.git": "gitdir: elsewhere\n",  # a submodule's pointer file: never read
        "lib/mod.py": "pass\n",
    })
    os.symlink("src/a.py", folder / "link.py")
    before = _listing(folder)
    workspace = Workspace.open(str(folder), size_limit=100)
    snap = workspace.snapshot()
    assert sorted(workspace.files(snap.id)) == [".gitignore", "keep.log", "lib/mod.py", "link.py", "src/.gitignore", "src/a.py"]
    assert [(s.path, s.size) for s in snap.skipped] == [("big.dat", 200)]
    assert workspace.files(snap.id)["link.py"][0] == 0o120000
    assert _listing(folder) == before  # no .git, no marker files: the folder is exactly as it was
    assert workspace.store_path.parent == workspaces_root()
    assert str(workspaces_root()).startswith(os.environ["ARBOR_HOME"])
    assert workspace.snapshot().id == snap.id  # an unchanged folder is the same snapshot


def test_only_changed_files_are_read_and_changes_are_counted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "p"
    _write(folder, {f"d{i}/f{j}.txt": f"line {i} {j}\n" for i in range(5) for j in range(20)})
    _write(folder, {"img.png": b"\x89PNG\0\0data", "gone.txt": "a\nb\n"})
    _later(monkeypatch)
    workspace = Workspace.open(str(folder))
    first = workspace.snapshot()
    read: list[str] = []
    real = Workspace._hash_file
    monkeypatch.setattr(Workspace, "_hash_file", lambda self, rel, path, mode, pending: read.append(rel) or real(self, rel, path, mode, pending))
    _write(folder, {"d1/f3.txt": "line 1 3\nadded\n", "new.txt": "one\ntwo\nthree\n", "img.png": b"\x89PNG\0\0other"})
    (folder / "gone.txt").unlink()
    second = workspace.snapshot()
    assert sorted(read) == ["d1/f3.txt", "img.png", "new.txt"]
    changes = workspace.changes(first.id, second.id)
    assert [(c.path, c.kind, c.added, c.removed, c.binary) for c in changes] == [
        ("d1/f3.txt", ChangeKind.MODIFIED, 1, 0, False),
        ("gone.txt", ChangeKind.DELETED, 0, 2, False),
        ("img.png", ChangeKind.MODIFIED, 0, 0, True),
        ("new.txt", ChangeKind.ADDED, 3, 0, False),
    ]
    text = workspace.diff_text(first.id, second.id)
    assert "--- a/d1/f3.txt\n+++ b/d1/f3.txt\n" in text and "+added\n" in text
    assert "Binary files a/img.png and b/img.png differ\n" in text
    assert "--- a/gone.txt\n+++ /dev/null\n" in text
    assert workspace.diff_text(first.id, second.id, "new.txt").startswith("diff --git a/new.txt b/new.txt\n--- /dev/null\n")
    # A second process (no memory of this one) starts from the stat cache kept in the store.
    fresh = Workspace(str(folder), workspace.store_path)
    read.clear()
    assert fresh.snapshot().tree == second.tree
    assert read == []


def test_a_file_written_this_instant_is_read_again_until_its_stat_can_be_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git's racily-clean rule: a second same-size change in the same clock tick keeps the stat."""
    folder = tmp_path / "p"
    _write(folder, {"notes.md": "v1"})
    workspace = Workspace.open(str(folder))
    first = workspace.snapshot()
    assert "notes.md" not in workspace._stat_cache()  # just written: not trusted
    stat = (folder / "notes.md").stat()
    (folder / "notes.md").write_text("v2")
    os.utime(folder / "notes.md", ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert workspace.snapshot().tree != first.tree
    _later(monkeypatch)
    workspace.snapshot()
    assert "notes.md" in workspace._stat_cache()  # a few seconds on, its stat is trusted


def test_restore_brings_the_folder_back_and_can_be_undone(tmp_path: Path) -> None:
    folder = tmp_path / "p"
    _write(folder, {"a.txt": "one\n", "tool.sh": "#!/bin/sh\n", "dir/x.txt": "x\n", "big.bin": "B" * 50,
                    "ignored.tmp": "mine", ".gitignore": "*.tmp\n"})
    (folder / "tool.sh").chmod(0o755)
    workspace = Workspace.open(str(folder), size_limit=40)
    first = workspace.snapshot()
    _write(folder, {"a.txt": "two\n", "new/deep/y.txt": "y\n", "ignored.tmp": "still mine", "big.bin": "C" * 60})
    (folder / "tool.sh").chmod(0o644)
    (folder / "dir/x.txt").unlink()
    (folder / "dir").rmdir()
    second = workspace.snapshot()
    (folder / "a.txt").write_text("by hand\n")  # changed since the last checkpoint
    assert [(c.kind.value, c.path) for c in workspace.plan_restore(first.id)] == [
        ("M", "a.txt"), ("A", "dir/x.txt"), ("D", "new/deep/y.txt"), ("M", "tool.sh")]
    result = workspace.restore(first.id, expected=second.id)
    assert result.hand_edited == ["a.txt"]
    assert (folder / "a.txt").read_text() == "one\n" and (folder / "dir/x.txt").read_text() == "x\n"
    assert not (folder / "new").exists()  # emptied folders go
    assert os.access(folder / "tool.sh", os.X_OK)
    assert (folder / "ignored.tmp").read_text() == "still mine" and (folder / "big.bin").read_text() == "C" * 60
    assert workspace.snapshot().tree == first.tree
    workspace.restore(result.undo)  # the restore undone: the hand edit is back
    assert (folder / "a.txt").read_text() == "by hand\n" and (folder / "new/deep/y.txt").exists()
    assert not os.access(folder / "tool.sh", os.X_OK)


def test_a_restore_that_fails_half_way_puts_the_files_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "p"
    _write(folder, {"a.txt": "a1", "b.txt": "b1", "c.txt": "c1"})
    workspace = Workspace.open(str(folder))
    first = workspace.snapshot()
    _write(folder, {"a.txt": "a2", "b.txt": "b2", "c.txt": "c2"})
    before = _listing(folder)
    real = store_module.write_file

    def failing(path: str, data: bytes) -> None:
        if path.endswith("b.txt") and data == b"b1":
            raise OSError(28, "No space left on device", path)
        real(path, data)

    monkeypatch.setattr(store_module, "write_file", failing)
    with pytest.raises(RestoreFailed) as failed:
        workspace.restore(first.id)
    assert failed.value.rolled_back
    assert "b.txt (No space left on device)" in str(failed.value) and "put back" in str(failed.value)
    assert _listing(folder) == before


def test_snapshot_failures_say_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "p"
    _write(folder, {"a.txt": "a"})
    workspace = Workspace.open(str(folder))

    def unreadable(self: Workspace, rel: str, path: str, mode: int, pending: object) -> str:
        raise PermissionError(13, "Permission denied", str(folder / "a.txt"))

    with monkeypatch.context() as patch:
        patch.setattr(Workspace, "_hash_file", unreadable)
        with pytest.raises(WorkspaceError, match=r"^a.txt could not be read \(Permission denied\)$"):
            workspace.snapshot()
    with pytest.raises(WorkspaceError, match="is not in the store"):
        workspace.tree_of("0" * 40)
    _write(folder, {"b.txt": "b", "c.txt": "c"})
    workspace.max_files = 2
    with pytest.raises(WorkspaceError, match=r"more than 2 files outside .gitignore: too many to checkpoint"):
        workspace.snapshot()
    (folder / "b.txt").unlink()
    (folder / "c.txt").unlink()
    (folder / "a.txt").unlink()
    folder.rmdir()
    with pytest.raises(WorkspaceError, match=r"the working folder .* is gone"):
        workspace.snapshot()


def test_a_folder_that_is_a_git_repository_keeps_its_git_untouched(tmp_path: Path) -> None:
    from dulwich import porcelain

    folder = tmp_path / "repo"
    folder.mkdir()
    repo = porcelain.init(str(folder))
    _write(folder, {"a.txt": "committed\n", ".gitignore": "*.log\n"})
    porcelain.add(repo, [str(folder / "a.txt"), str(folder / ".gitignore")])
    porcelain.commit(repo, message=b"first", author=b"U <u@x>", committer=b"U <u@x>")
    (folder / "a.txt").write_text("stashed change\n")
    porcelain.stash_push(repo)
    _write(folder, {"a.txt": "staged\n", "b.txt": "untracked\n", "debug.log": "ignored\n"})
    porcelain.add(repo, [str(folder / "a.txt")])  # the index holds a staged change
    repo.close()
    git_before = _listing(folder / ".git")
    assert "refs/stash" in git_before and "index" in git_before

    workspace = Workspace.open(str(folder))
    first = workspace.snapshot()
    assert sorted(workspace.files(first.id)) == [".gitignore", "a.txt", "b.txt"]
    _write(folder, {"a.txt": "agent\n", "c.txt": "new\n"})
    (folder / "b.txt").unlink()
    workspace.snapshot()
    workspace.restore(first.id)
    assert (folder / "a.txt").read_text() == "staged\n" and (folder / "b.txt").exists() and not (folder / "c.txt").exists()
    assert _listing(folder / ".git") == git_before  # index, HEAD, refs, stash: byte for byte
