"""Workspace checkpoints benchmark (issue 25 item 6, DESIGN.md §13): what a snapshot costs a turn.

Builds a working folder of N text files (default 10,000: 100 folders of 100 files of 1–6 KB, as a
mid-size source tree; their mtimes a minute old, as files not touched this instant are) and a store
in a temporary Arbor data dir, then measures:

* the first snapshot (every file read and stored: one pack);
* a snapshot after one file changed (the agent's case after every write/edit/bash), and one with
  nothing changed: median of ``runs``;
* the same from a fresh process's point of view (the stat cache read back from the store);
* the store's growth over 100 turns that each change one file (a few lines of it), against the
  changed files' bytes compressed with zlib (what git itself would add as loose blobs): a file at
  random, a file of a working set of 10, and that working set's next 100 turns (its files' previous
  versions already in the open pack: each new version a delta); as the snapshots leave it and after
  ``Workspace.pack()`` (equal since snapshots write no loose objects: the column shows it);
* restoring 300 turns back (and forward again), and restoring one file.

Target: ≤ 200 ms per snapshot at 10,000 files; growth ≈ the changed bytes compressed.

    .venv/bin/python benchmarks/bench_checkpoints.py [--files N] [--runs R] [--quick]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `desktop_app` importable from the checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from desktop_app.workspace.store import RACY_NS, Workspace  # noqa: E402

TITLE = "Workspace checkpoints (issue 25)"
TURNS = 100
_WORDS = ("def class return self value index node tree branch leaf parent token cache read write edit "
          "import from for while if else try except raise yield lambda print test assert").split()


def _text(rng: random.Random, size: int) -> str:
    lines: list[str] = []
    total = 0
    while total < size:
        line = "    " * rng.randint(0, 3) + " ".join(rng.choices(_WORDS, k=rng.randint(3, 12))) + "\n"
        lines.append(line)
        total += len(line)
    return "".join(lines)


def build_folder(root: Path, files: int, rng: random.Random) -> list[Path]:
    per_dir = 100
    paths: list[Path] = []
    past = time.time() - 60
    for i in range(files):
        folder = root / f"pkg{i // per_dir:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"mod{i % per_dir:03d}.py"
        path.write_text(_text(rng, rng.randint(1000, 6000)))
        os.utime(path, (past, past))
        paths.append(path)
    return paths


def _timed(fn: Callable[[], Any]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def _row(case: str, files: int, samples: list[tuple[float, float]], target: str, **extra: Any) -> dict[str, Any]:
    walls = [w for w, _ in samples]
    return {"case": case, "files": files, "median_s": statistics.median(walls), "min_s": min(walls),
            "max_s": max(walls), "cpu_s": statistics.median(c for _, c in samples), "runs": len(samples),
            "target": target, **extra}


def _store_bytes(store: Path) -> int:
    return sum(p.stat().st_size for p in store.rglob("*") if p.is_file())


def _change(rng: random.Random, path: Path) -> bytes:
    """Rewrite a few lines of a file (an edit), returning its new content."""
    lines = path.read_text().splitlines(keepends=True)
    for _ in range(3):
        lines[rng.randrange(len(lines))] = " ".join(rng.choices(_WORDS, k=8)) + "\n"
    data = "".join(lines).encode()
    path.write_bytes(data)
    return data


def measure(root: Path, data_dir: Path, paths: list[Path], runs: int, rng: random.Random) -> list[dict[str, Any]]:
    n = len(paths)
    workspace = Workspace.open(str(root), root=data_dir)
    rows = [_row("first snapshot (every file read, one pack)", n, [_timed(workspace.snapshot)], "-")]
    time.sleep(RACY_NS / 1e9)  # the folder was just written: its files are trusted from the next snapshot on
    workspace.snapshot()
    changed: list[tuple[float, float]] = []
    for _ in range(runs):
        _change(rng, rng.choice(paths))
        changed.append(_timed(workspace.snapshot))
    rows.append(_row("snapshot, one file changed", n, changed, "≤ 200 ms"))
    rows.append(_row("snapshot, nothing changed", n, [_timed(workspace.snapshot) for _ in range(runs)], "≤ 200 ms"))
    fresh: list[tuple[float, float]] = []
    for _ in range(runs):
        _change(rng, rng.choice(paths))
        other = Workspace(str(root), workspace.store_path)  # a new process: the stat cache from disk
        fresh.append(_timed(other.snapshot))
        other.close()
    rows.append(_row("snapshot, one file changed, fresh process (stat cache read back)", n, fresh, "≤ 200 ms"))

    start = workspace.snapshot()
    working_set = rng.sample(paths, 10)
    for label, pool in (("one of all files at random", paths), ("one of a working set of 10", working_set),
                        ("one of the same working set, the next 100", working_set)):
        workspace.pack()
        store_before = _store_bytes(workspace.store_path)
        compressed = 0
        for _ in range(TURNS):
            data = _change(rng, rng.choice(pool))
            compressed += len(zlib.compress(b"blob %d\0" % len(data) + data))
            workspace.snapshot()
        growth = _store_bytes(workspace.store_path) - store_before
        workspace.pack()
        packed = _store_bytes(workspace.store_path) - store_before
        rows.append({"case": f"store growth over {TURNS} turns, each changing {label}", "files": n,
                     "growth_bytes": growth, "packed_bytes": packed, "changed_compressed_bytes": compressed,
                     "per_turn_bytes": growth / TURNS, "ratio": growth / compressed if compressed else 0.0,
                     "packed_ratio": packed / compressed if compressed else 0.0,
                     "target": "≈ changed bytes compressed"})
    latest = workspace.snapshot()
    differ = len(workspace.changes(start.id, latest.id))
    back = [_timed(lambda: workspace.restore(start.id)), _timed(lambda: workspace.restore(latest.id))]
    rows.append(_row(f"restore {3 * TURNS} turns back, then forward again ({differ} files differ)", n, back, "-"))
    one: list[tuple[float, float]] = []
    for _ in range(runs):
        before = workspace.snapshot()
        _change(rng, rng.choice(paths))
        one.append(_timed(lambda before=before: workspace.restore(before.id)))  # type: ignore[misc]
    rows.append(_row("restore one changed file", n, one, "-"))
    workspace.close()
    return rows


def run(quick: bool = False, files: int | None = None, runs: int | None = None) -> list[dict[str, Any]]:
    n_files = files if files is not None else (2000 if quick else 10_000)
    n_runs = runs if runs is not None else (3 if quick else 11)
    rng = random.Random(25)
    with tempfile.TemporaryDirectory(prefix="arbor-bench-ckpt-") as tmp:
        root = Path(tmp) / "work"
        paths = build_folder(root, n_files, rng)
        rows = measure(root, Path(tmp) / "data", paths, n_runs, rng)
    return rows


def markdown(rows: list[dict[str, Any]]) -> str:
    out = ["| case | files | median | min | max | CPU (median) | runs | target |",
           "|---|---:|---:|---:|---:|---:|---:|---|"]
    growth: list[str] = []
    for row in rows:
        if "growth_bytes" in row:
            growth.append(
                f"- {row['case'].capitalize()} ({row['files']:,} files): "
                f"{row['growth_bytes'] / 1024:.0f} KB ({row['per_turn_bytes'] / 1024:.1f} KB a turn), against "
                f"{row['changed_compressed_bytes'] / 1024:.0f} KB for the changed files compressed "
                f"(ratio {row['ratio']:.2f}, as the snapshots leave it; "
                f"{row['packed_bytes'] / 1024:.0f} KB, ratio {row['packed_ratio']:.2f}, after Workspace.pack()).")
            continue
        out.append(f"| {row['case']} | {row['files']:,} | {row['median_s'] * 1000:.1f} ms | {row['min_s'] * 1000:.1f} ms"
                   f" | {row['max_s'] * 1000:.1f} ms | {row['cpu_s'] * 1000:.1f} ms | {row['runs']} | {row['target']} |")
    return "\n".join(out + [""] + growth)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int)
    parser.add_argument("--runs", type=int)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    print(markdown(run(args.quick, args.files, args.runs)))


if __name__ == "__main__":
    main()
