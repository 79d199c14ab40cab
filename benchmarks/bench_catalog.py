"""Session catalog benchmark: how long the Sessions panel waits for a listing (DESIGN.md §7, §10).

Builds a sessions root of N realistic session files (default 1,000) spread over project folders —
mostly 20–200 entries, a few long ones; user prompts, assistant replies with tool calls, tool
results of a few KB — then measures ``SessionCatalog.list_all()``:

* cold: a fresh catalog each run (every file read and parsed; the OS page cache is warm);
* warm, nothing changed: the same catalog again (one ``stat`` per file, nothing read);
* warm, 10 files changed: 10 files get an appended entry before each run (exactly 10 re-reads);
* warm search with two terms, and ``list(cwd)`` of one project;
* with ``ARBOR_PI_PACKAGE`` set (an installed pi 0.73.1 package dir) and ``node`` on PATH, pi's own
  ``SessionManager.listAll()`` on the same files, side by side (DESIGN.md §10).

Each figure is the median of ``runs`` runs after one warm-up run. Target: a repeated listing of
1,000 files well under one second.

    .venv/bin/python benchmarks/bench_catalog.py [--files N] [--runs R] [--quick]

``run(quick=False)`` returns the rows for ``benchmarks/run_all.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `desktop_app` importable from the checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from desktop_app.session.catalog import SessionCatalog  # noqa: E402
from desktop_app.session.entries import iso_from_ms  # noqa: E402
from desktop_app.session.paths import encode_cwd, session_file_name  # noqa: E402

PROJECTS = 25
CHANGED_PER_RUN = 10
SEARCH_QUERY = "parser tokenizer"

_WORDS = (
    "the a session tree branch leaf parent compaction summary token context model cache file read write "
    "edit bash grep find test fix refactor parser tokenizer render layout graph node edge label fork "
    "resume list search index entry message user assistant tool result error retry stream abort usage "
    "cost window budget cut point turn split migrate header version line json utf8 path cwd project"
).split()


def _corpus(rng: random.Random, size: int = 400_000) -> str:
    """One long random text; messages are slices of it (generating each message is far slower)."""
    words: list[str] = []
    length = 0
    while length < size:
        word = rng.choice(_WORDS)
        if rng.random() < 0.04:
            word += ".\n" if rng.random() < 0.3 else "."
        words.append(word)
        length += len(word) + 1
    return " ".join(words)


def _text(rng: random.Random, corpus: str, low: int, high: int) -> str:
    n = rng.randint(low, high)
    start = rng.randrange(0, len(corpus) - n)
    return corpus[start : start + n]


def _entry_count(rng: random.Random) -> int:
    roll = rng.random()
    if roll < 0.90:
        return rng.randint(20, 200)
    if roll < 0.98:
        return rng.randint(200, 800)
    return rng.randint(800, 2000)


def _usage() -> dict[str, Any]:
    return {
        "input": 1200,
        "output": 300,
        "cacheRead": 9000,
        "cacheWrite": 400,
        "totalTokens": 10900,
        "cost": {
            "input": 0.0036,
            "output": 0.0045,
            "cacheRead": 0.0027,
            "cacheWrite": 0.0015,
            "total": 0.0123,
        },
    }


def _session_lines(rng: random.Random, corpus: str, cwd: str, start_ms: int) -> tuple[str, list[str]]:
    """(session id, JSONL lines) of one session: turns of user → [assistant toolCall → toolResult]* →
    assistant text, the odd model change and session name."""
    sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    now = start_ms

    def dump(obj: dict[str, Any]) -> str:
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))

    header = {"type": "session", "version": 3, "id": sid, "timestamp": iso_from_ms(now), "cwd": cwd}
    lines = [dump(header)]
    target = _entry_count(rng)
    parent: str | None = None
    count = 0

    def add(entry_type: str, **fields: Any) -> None:
        nonlocal parent, now, count
        now += rng.randint(500, 30_000)
        entry_id = f"{rng.getrandbits(32):08x}"
        entry: dict[str, Any] = {
            "type": entry_type,
            "id": entry_id,
            "parentId": parent,
            "timestamp": iso_from_ms(now),
        }
        entry.update(fields)
        if entry_type == "message":
            entry["message"]["timestamp"] = now
        lines.append(dump(entry))
        parent = entry_id
        count += 1

    while count < target:
        add(
            "message",
            message={"role": "user", "content": [{"type": "text", "text": _text(rng, corpus, 40, 600)}]},
        )
        for _ in range(rng.choice((0, 1, 1, 2, 3))):
            call_id = f"toolu_{rng.getrandbits(64):016x}"
            add(
                "message",
                message={
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": _text(rng, corpus, 20, 200)},
                        {
                            "type": "toolCall",
                            "id": call_id,
                            "name": "read",
                            "arguments": {"path": "src/x.ts"},
                        },
                    ],
                    "api": "anthropic-messages",
                    "provider": "anthropic",
                    "model": "claude-sonnet-4-5",
                    "usage": _usage(),
                    "stopReason": "toolUse",
                },
            )
            add(
                "message",
                message={
                    "role": "toolResult",
                    "toolCallId": call_id,
                    "toolName": "read",
                    "content": [{"type": "text", "text": _text(rng, corpus, 200, 5000)}],
                    "isError": False,
                },
            )
        add(
            "message",
            message={
                "role": "assistant",
                "content": [{"type": "text", "text": _text(rng, corpus, 80, 1500)}],
                "api": "anthropic-messages",
                "provider": "anthropic",
                "model": "claude-sonnet-4-5",
                "usage": _usage(),
                "stopReason": "stop",
            },
        )
        if rng.random() < 0.03:
            add("model_change", provider="anthropic", modelId="claude-opus-4-5")
        if rng.random() < 0.02:
            add("session_info", name=_text(rng, corpus, 10, 40).strip())
    return sid, lines


def build_root(root: Path, files: int, seed: int = 1) -> dict[str, Any]:
    """Write ``files`` sessions under ``root``; returns a description of what was written."""
    rng = random.Random(seed)
    corpus = _corpus(rng)
    cwds = [f"/home/dev/code/project-{i:02d}" for i in range(PROJECTS)]
    total_bytes = 0
    total_lines = 0
    start = 1_750_000_000_000
    for _ in range(files):
        cwd = rng.choice(cwds)
        start += rng.randint(60_000, 6_000_000)
        sid, lines = _session_lines(rng, corpus, cwd, start)
        directory = root / encode_cwd(cwd)
        directory.mkdir(parents=True, exist_ok=True)
        data = ("\n".join(lines) + "\n").encode("utf-8")
        (directory / session_file_name(iso_from_ms(start), sid)).write_bytes(data)
        total_bytes += len(data)
        total_lines += len(lines)
    return {"files": files, "bytes": total_bytes, "lines": total_lines, "projects": len(cwds)}


def _median_runs(
    runs: int, action: Callable[[], None], before: Callable[[], None] | None = None
) -> list[float]:
    """Timings (s) of ``runs`` runs of ``action`` after one warm-up; ``before`` runs untimed each time."""
    times: list[float] = []
    for i in range(runs + 1):
        if before is not None:
            before()
        t0 = time.perf_counter()
        action()
        elapsed = time.perf_counter() - t0
        if i:
            times.append(elapsed)
    return times


def _row(case: str, files: int, times: list[float], files_read: float, target: str = "") -> dict[str, Any]:
    return {
        "benchmark": "catalog",
        "case": case,
        "files": files,
        "runs": len(times),
        "median_s": statistics.median(times),
        "min_s": min(times),
        "max_s": max(times),
        "files_read_per_run": files_read,
        "target": target,
    }


def measure(root: Path, files: int, runs: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []

    # Cold: every run builds a fresh catalog, so every file is read and parsed.
    cold_reads: list[int] = []

    def cold() -> None:
        catalog = SessionCatalog(root)
        listed = catalog.list_all()
        assert len(listed) == files, (len(listed), files)
        cold_reads.append(catalog.stats.files_read)

    rows.append(
        _row("first listing (cold cache)", files, _median_runs(runs, cold), statistics.median(cold_reads))
    )

    catalog = SessionCatalog(root)
    catalog.list_all()

    def counted(action: Callable[[], object]) -> tuple[Callable[[], None], list[int]]:
        deltas: list[int] = []

        def run() -> None:
            before = catalog.stats.files_read
            action()
            deltas.append(catalog.stats.files_read - before)

        return run, deltas

    warm, warm_reads = counted(catalog.list_all)
    rows.append(
        _row(
            "repeated listing, nothing changed",
            files,
            _median_runs(runs, warm),
            statistics.median(warm_reads),
            "well under 1 s at 1,000 files",
        )
    )

    paths = sorted(info.path for info in catalog.list_all())
    rng = random.Random(7)

    def touch_ten() -> None:
        for path in rng.sample(paths, min(CHANGED_PER_RUN, len(paths))):
            entry = {
                "type": "message",
                "id": f"{rng.getrandbits(32):08x}",
                "parentId": None,
                "timestamp": iso_from_ms(1_800_000_000_000),
                "message": {
                    "role": "user",
                    "content": [{"type": "text", "text": "one more"}],
                    "timestamp": 1,
                },
            }
            with path.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(entry, separators=(",", ":")) + "\n")

    changed, changed_reads = counted(catalog.list_all)
    rows.append(
        _row(
            f"repeated listing, {CHANGED_PER_RUN} files changed",
            files,
            _median_runs(runs, changed, before=touch_ten),
            statistics.median(changed_reads),
            "well under 1 s at 1,000 files",
        )
    )

    search, search_reads = counted(lambda: catalog.search(SEARCH_QUERY))
    rows.append(
        _row(
            f"search {SEARCH_QUERY!r} (warm)",
            files,
            _median_runs(runs, search),
            statistics.median(search_reads),
        )
    )

    one_project = catalog.list_all()[0].cwd
    listing, list_reads = counted(lambda: catalog.list(one_project))
    rows.append(
        _row(
            "list(cwd) of one project (warm)",
            files,
            _median_runs(runs, listing),
            statistics.median(list_reads),
        )
    )
    return rows


_PI_LIST_ALL = """
const [pkg, runs] = process.argv.slice(1);
const { SessionManager } = await import(pkg + "/dist/core/session-manager.js");
const times = [];
let count = 0;
for (let i = 0; i <= Number(runs); i++) {
  const t0 = performance.now();
  count = (await SessionManager.listAll()).length;
  if (i) times.push((performance.now() - t0) / 1000);
}
process.stdout.write(JSON.stringify({ times, count }));
"""


def measure_pi(root: Path, files: int, runs: int) -> list[dict[str, Any]]:
    """pi 0.73.1's ``SessionManager.listAll()`` on the same root, when ``ARBOR_PI_PACKAGE`` points at
    an installed ``@mariozechner/pi-coding-agent``. pi has no cache: every listing reads every file."""
    package = os.environ.get("ARBOR_PI_PACKAGE")
    if not package or shutil.which("node") is None:
        return []
    env = dict(os.environ, PI_CODING_AGENT_DIR=str(root.parent))  # pi lists <agentDir>/sessions
    done = subprocess.run(
        ["node", "--input-type=module", "-e", _PI_LIST_ALL, package, str(runs)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    result = json.loads(done.stdout)
    assert result["count"] == files, result["count"]
    return [_row("pi 0.73.1 listAll() (every listing)", files, result["times"], files, "for comparison")]


def run(quick: bool = False, files: int | None = None, runs: int | None = None) -> list[dict[str, Any]]:
    """Build a temporary sessions root, measure, clean up; rows as documented in the module."""
    n_files = files if files is not None else (200 if quick else 1000)
    n_runs = runs if runs is not None else (3 if quick else 5)
    with tempfile.TemporaryDirectory(prefix="arbor-bench-catalog-") as tmp:
        root = Path(tmp) / "sessions"
        t0 = time.perf_counter()
        dataset = build_root(root, n_files)
        build_s = time.perf_counter() - t0
        rows = measure(root, n_files, n_runs)
        rows += measure_pi(root, n_files, n_runs)
    for row in rows:
        row["dataset_mb"] = round(dataset["bytes"] / 1e6, 1)
        row["dataset_lines"] = dataset["lines"]
        row["build_s"] = round(build_s, 2)
    return rows


def markdown(rows: list[dict[str, Any]]) -> str:
    out = [
        "| case | files | median | min | max | files read / run | target |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        out.append(
            f"| {row['case']} | {row['files']:,} | {row['median_s'] * 1000:.1f} ms | {row['min_s'] * 1000:.1f} ms"
            f" | {row['max_s'] * 1000:.1f} ms | {row['files_read_per_run']:g} | {row['target']} |"
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--files", type=int, default=None, help="session files to create (default 1000)")
    parser.add_argument(
        "--runs", type=int, default=None, help="timed runs per case after a warm-up (default 5)"
    )
    parser.add_argument("--quick", action="store_true", help="200 files, 3 runs")
    args = parser.parse_args(argv)
    rows = run(quick=args.quick, files=args.files, runs=args.runs)
    first = rows[0]
    print(
        f"Session catalog: {first['files']:,} files, {first['dataset_lines']:,} lines, {first['dataset_mb']} MB"
        f" in {PROJECTS} project folders (generated in {first['build_s']} s); median of {first['runs']} runs"
        " after one warm-up.\n"
    )
    print(markdown(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
