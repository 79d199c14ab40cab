"""Each snapshot goes straight into the store's open pack, trees as deltas (issue 25 item 6: growth ≈
the changed bytes at every moment), and the store stays a git repository that `git` reads, also
after the open pack rolls over, packs merge, and a writer is killed half-way."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest
from dulwich.objects import Blob

from desktop_app.workspace import Workspace
from desktop_app.workspace import openpack as openpack_module
from desktop_app.workspace import store as store_module
from desktop_app.workspace.packfiles import TREE, read_pack, remove_stray_files, whole_record, write_pack

ROOT = Path(__file__).resolve().parents[2]


def _git(store: Path, *args: str) -> str:
    done = subprocess.run(["git", "--git-dir", str(store), *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _store_files(store: Path) -> dict[str, int]:
    return {p.relative_to(store).as_posix(): p.stat().st_size for p in store.rglob("*") if p.is_file()}


def _loose(store: Path) -> list[str]:
    return [k for k in _store_files(store) if k.startswith("objects/") and not k.startswith(("objects/pack/", "objects/info/"))]


def _open_records(workspace: Workspace) -> list:  # type: ignore[type-arg]
    name = (workspace.store_path / openpack_module.MARKER).read_text().strip()
    records = read_pack(workspace.store_path / "objects" / "pack", name)
    assert records is not None
    return records


def _folder(tmp_path: Path, files: int = 60) -> Path:
    folder = tmp_path / "p"
    (folder / "a" / "b").mkdir(parents=True)
    for i in range(files):
        (folder / "a" / "b" / f"f{i}.txt").write_text(f"{i}\n" * 40)
    (folder / "top.txt").write_text("top\n")
    return folder


def test_every_snapshot_lands_in_the_open_pack_with_its_trees_as_deltas_and_git_reads_it(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    workspace = Workspace(str(folder), tmp_path / "store")
    snapshots = [workspace.snapshot()]
    for turn in range(12):
        before = sum(_store_files(workspace.store_path).values())
        data = f"turn {turn}\n".encode() * 30
        (folder / "a" / "b" / f"f{turn}.txt").write_bytes(data)
        snapshots.append(workspace.snapshot())
        assert _loose(workspace.store_path) == []  # nothing written loose, at any moment
        grew = sum(_store_files(workspace.store_path).values()) - before
        changed = len(zlib.compress(b"blob %d\0" % len(data) + data))
        # the blob, a commit (~150 bytes) and two tree deltas, not the trees whole (a/b/ alone is 2.5 KB)
        assert grew < changed + 600, (turn, grew, changed)
    trees = [r for r in _open_records(workspace) if r.kind == TREE]
    assert sum(1 for r in trees if r.base is not None) >= 12 * 2 - 1  # a/b/, a/ (and the root, when worth it)
    assert len(list((workspace.store_path / "objects" / "pack").glob("*.idx"))) == 1
    workspace.close()
    assert "error" not in _git(workspace.store_path, "fsck", "--strict", "--full")
    assert _git(workspace.store_path, "rev-list", "--count", "refs/heads/checkpoints").strip() == "13"
    assert _git(workspace.store_path, "cat-file", "-p", f"{snapshots[5].id}:a/b/f4.txt") == "turn 4\n" * 30
    fresh = Workspace(str(folder), workspace.store_path)
    for turn, snap in enumerate(snapshots[1:]):
        files = fresh.files(snap.id)
        assert fresh.blob(files[f"a/b/f{turn}.txt"][1]) == f"turn {turn}\n".encode() * 30
        assert fresh.blob(files[f"a/b/f{turn + 1}.txt"][1]) == f"{turn + 1}\n".encode() * 40
    fresh.close()


def test_a_fresh_process_finds_the_previous_tree_as_its_base(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    first = Workspace(str(folder), tmp_path / "store")
    first.snapshot()
    first.close()
    (folder / "a" / "b" / "f3.txt").write_text("by hand\n")  # between two processes
    fresh = Workspace(str(folder), tmp_path / "store")
    second = fresh.snapshot()
    fresh.close()
    tree_ab = _git(tmp_path / "store", "rev-parse", f"{second.id}:a/b").strip()
    record = next(r for r in _open_records(fresh) if r.sha.hex() == tree_ab)
    assert record.base is not None  # a delta of the first snapshot's a/b/, not the tree whole


def test_the_open_pack_rolls_over_closed_packs_merge_and_every_snapshot_stays_readable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(openpack_module, "OPEN_MAX", 6000)
    monkeypatch.setattr(store_module, "MERGE_PACKS", 2)
    folder = _folder(tmp_path, 40)
    workspace = Workspace(str(folder), tmp_path / "store")
    snapshots = [workspace.snapshot()]
    counts = []
    for turn in range(26):
        (folder / "a" / "b" / f"f{turn}.txt").write_bytes(os.urandom(400))  # 400 bytes that do not compress
        snapshots.append(workspace.snapshot())
        counts.append(len(list((workspace.store_path / "objects" / "pack").glob("*.idx"))))
    assert any(later < earlier for earlier, later in zip(counts, counts[1:], strict=False))  # merged on the way
    assert max(counts) <= 6  # the open pack, the largest, and small ones in a geometric progression
    records = _open_records(workspace)
    assert sum(len(r.data) for r in records) < 6000 + 3000  # bounded: blobs moved out
    assert any(r.kind == TREE and r.base is not None for r in records)  # trees still find their bases
    workspace.close()
    assert "error" not in _git(workspace.store_path, "fsck", "--strict", "--full")
    fresh = Workspace(str(folder), workspace.store_path)
    for turn, snap in enumerate(snapshots[1:]):
        assert len(fresh.blob(fresh.files(snap.id)[f"a/b/f{turn}.txt"][1])) == 400
    fresh.close()


def test_loose_objects_of_an_older_store_join_the_open_pack(tmp_path: Path) -> None:
    folder = _folder(tmp_path, 3)
    workspace = Workspace(str(folder), tmp_path / "store")
    first = workspace.snapshot()
    workspace._require().object_store.add_object(Blob.from_string(b"written loose by an older Arbor\n"))
    workspace.close()
    assert len(_loose(workspace.store_path)) == 1
    (folder / "top.txt").write_text("changed\n")
    fresh = Workspace(str(folder), workspace.store_path)
    fresh.snapshot()
    assert _loose(fresh.store_path) == []
    assert fresh.blob(Blob.from_string(b"written loose by an older Arbor\n").id.decode()) == b"written loose by an older Arbor\n"
    assert fresh.files(first.id)["top.txt"]
    fresh.close()
    assert "error" not in _git(fresh.store_path, "fsck", "--strict", "--full")


_CHILD = r"""
import os, sys, time
sys.path.insert(0, {root!r})
from pathlib import Path
from desktop_app.workspace import Workspace, openpack, packfiles
folder, store, signal_file, seam = sys.argv[1:5]

def stop_here():
    Path(signal_file).write_text("now")
    time.sleep(60)

if seam == "pack":  # killed with half a pack written to its temporary file
    def write_chunks(handle, data):
        handle.write(data[: len(data) // 2]); handle.flush(); stop_here()
    packfiles.write_chunks = write_chunks
else:  # killed after the new pack is in place, before the marker names it
    openpack.OpenPack._point_to = lambda self, name: stop_here()
Workspace(folder, Path(store)).snapshot()
"""


def test_a_writer_killed_half_way_leaves_a_store_git_reads_and_the_next_snapshot_completes(tmp_path: Path) -> None:
    folder = _folder(tmp_path, 10)
    store = tmp_path / "store"
    workspace = Workspace(str(folder), store)
    kept = workspace.snapshot()
    workspace.close()
    script = tmp_path / "child.py"
    script.write_text(_CHILD.format(root=str(ROOT)))
    for turn, seam in enumerate(("pack", "marker")):
        (folder / "a" / "b" / "f1.txt").write_text(f"killed {turn}\n")
        signal_file = tmp_path / f"signal-{seam}"
        child = subprocess.Popen([sys.executable, str(script), str(folder), str(store), str(signal_file), seam])
        deadline = time.monotonic() + 30
        while not signal_file.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert signal_file.exists(), "the child never reached the write"
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        assert "error" not in _git(store, "fsck", "--strict", "--full")
        assert _git(store, "rev-parse", "refs/heads/checkpoints").strip() == kept.id  # the killed snapshot never landed
    assert list((store / "objects" / "pack").glob("tmp_arbor_*"))  # the half-written pack, left as a stray file
    after = Workspace(str(folder), store)
    done = after.snapshot()
    assert after.blob(after.files(done.id)["a/b/f1.txt"][1]) == b"killed 1\n"
    assert after.files(kept.id)["a/b/f1.txt"] != after.files(done.id)["a/b/f1.txt"]
    after.close()
    assert "error" not in _git(store, "fsck", "--strict", "--full")
    old = time.time() - 3600
    for stray in (store / "objects" / "pack").glob("tmp_arbor_*"):
        os.utime(stray, (old, old))
    remove_stray_files(store / "objects" / "pack")
    assert not list((store / "objects" / "pack").glob("tmp_arbor_*"))


def test_a_file_edited_turn_after_turn_is_stored_as_deltas_of_its_previous_version(tmp_path: Path) -> None:
    folder = tmp_path / "p"
    folder.mkdir()
    lines = [f"line {i}: {os.urandom(12).hex()}\n" for i in range(200)]
    notes = folder / "notes.md"
    notes.write_text("".join(lines))
    workspace = Workspace(str(folder), tmp_path / "store")
    versions = [workspace.snapshot()]
    for turn in range(5):
        lines[turn * 37] = f"edited in turn {turn}\n"
        notes.write_text("".join(lines))
        versions.append(workspace.snapshot())
    blobs = {r.sha.hex(): r for r in _open_records(workspace) if r.kind == 3}
    ids = [workspace.files(v.id)["notes.md"][1] for v in versions]
    assert all(blobs[i].base is not None and len(blobs[i].data) < 120 for i in ids[2:])  # the edited line, not 9 KB
    workspace.close()
    _git(workspace.store_path, "fsck", "--strict", "--full")
    assert _git(workspace.store_path, "cat-file", "-p", f"{versions[-1].id}:notes.md") == "".join(lines)
    assert _git(workspace.store_path, "cat-file", "-p", ids[3]).count("edited in turn") == 3


def test_one_writer_per_store_in_a_process_with_the_latest_size_limit(tmp_path: Path) -> None:
    folder = _folder(tmp_path, 1)
    (folder / "big.bin").write_bytes(b"x" * 5000)
    first = Workspace.open(str(folder), size_limit=10_000)
    assert [s.path for s in first.snapshot().skipped] == []
    second = Workspace.open(str(folder), size_limit=1000)  # the setting changed: same store, same writer
    assert second is first and [s.path for s in second.snapshot().skipped] == ["big.bin"]


def test_merging_packs_copies_files_turns_whole_trees_into_deltas_and_reads_git_s_own_packs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(openpack_module, "OPEN_MAX", 4000)  # the trees close often: each closed pack holds them whole
    folder = _folder(tmp_path, 30)
    workspace = Workspace(str(folder), tmp_path / "store")
    store = workspace.store_path
    snapshots = [workspace.snapshot()]
    for turn in range(14):
        (folder / "a" / "b" / f"f{turn}.txt").write_bytes(os.urandom(300))
        snapshots.append(workspace.snapshot())
    # a pack git wrote itself (offset deltas: not one of Arbor's), of objects no snapshot holds
    ids = [subprocess.run(["git", "--git-dir", str(store), "hash-object", "-w", "--stdin"], check=True,
                          input=("shared line\n" * 200 + f"version {i}\n").encode(), capture_output=True).stdout
           for i in range(3)]
    subprocess.run(["git", "--git-dir", str(store), "pack-objects", "-q", "--delta-base-offset",
                    str(store / "objects" / "pack" / "pack")], input=b"".join(ids), check=True, capture_output=True)
    _git(store, "prune-packed")
    pack_dir = store / "objects" / "pack"
    assert any(read_pack(pack_dir, p.stem) is None for p in pack_dir.glob("*.idx"))  # git's offset deltas
    workspace.pack()
    largest = max(pack_dir.glob("*.pack"), key=lambda p: p.stat().st_size).stem
    merged = [p.stem for p in pack_dir.glob("*.idx") if p.stem not in (largest, _open_name(store))]
    assert len(merged) == 1
    records = read_pack(pack_dir, merged[0])
    assert records is not None
    whole_trees = [r for r in records if r.kind == TREE and r.base is None]
    assert len(whole_trees) <= 3  # one per folder (root, a/, a/b/): the others are deltas across the packs
    workspace.close()
    _git(store, "fsck", "--strict", "--full")
    fresh = Workspace(str(folder), store)
    for turn, snap in enumerate(snapshots[1:]):
        assert len(fresh.blob(fresh.files(snap.id)[f"a/b/f{turn}.txt"][1])) == 300
    fresh.close()
    assert _git(store, "cat-file", "--batch-all-objects", "--batch-check").count(" blob ") >= 30 + 14 + 3


def _open_name(store: Path) -> str:
    return (store / openpack_module.MARKER).read_text().strip()


def test_merging_a_pack_with_its_own_copy_keeps_it(tmp_path: Path) -> None:
    """A merge whose result is one of its inputs (a pack and a killed writer's copy of it: the same
    content, so the same name) must not remove that pack."""
    folder = _folder(tmp_path, 2)
    workspace = Workspace(str(folder), tmp_path / "store")
    workspace.snapshot()
    pack_dir = workspace.store_path / "objects" / "pack"
    blobs = [Blob.from_string(f"blob {i}\n".encode()) for i in range(4)]
    write_pack(pack_dir, [whole_record(3, b.sha().digest(), b.as_raw_string()) for b in blobs[:3]])  # the largest
    only = write_pack(pack_dir, [whole_record(3, blobs[3].sha().digest(), blobs[3].as_raw_string())])
    for suffix in (".pack", ".idx"):
        (pack_dir / f"pack-{'ab' * 20}{suffix}").write_bytes((pack_dir / f"{only}{suffix}").read_bytes())
    workspace.close()
    again = Workspace(str(folder), workspace.store_path)
    again.pack()  # merges `only` and its copy: the result is `only` itself
    assert again.blob(blobs[3].id.decode()) == b"blob 3\n"
    again.close()
    _git(workspace.store_path, "fsck", "--strict", "--full")
    assert (pack_dir / f"{only}.idx").exists() and not (pack_dir / f"pack-{'ab' * 20}.idx").exists()
