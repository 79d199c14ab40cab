"""Session engine benchmark (issue 2): open, tree, context, branch, peak memory, append cost.

For generated sessions of 20,000 and 100,000 entries (``--quick``: 2,000 and 10,000), measures
medians of N runs after one warm-up (5; ``--quick``: 3) of

* ``SessionManager.open`` (read, parse, migrate, index),
* ``get_tree()``, ``build_session_context()`` at the leaf, ``get_branch()``,
* peak RSS of a fresh child process that opens the file and builds the context,
* ``append_message`` on a copy of a 100-entry and of the largest session, fsync on and off
  (50 appends each, median), to show that an append costs the same whatever the size.

pi 0.73.1's figures from the issue are printed next to Arbor's. When ``node`` and pi 0.73.1 are
installed outside the repository (``PI_DIR``, default ``/tmp/pi0731``; see ``pi_side_by_side.mjs``),
pi is also measured on the same files in the same run, and ratios are taken against that.

``.venv/bin/python benchmarks/bench_session.py [--quick] [--no-pi] [--json FILE]``
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.generate import DATA_DIR, cached_session, describe  # noqa: E402
from desktop_app.session import SessionManager  # noqa: E402

TITLE = "Session engine: open, tree, context, branch, memory (medians)"
HERE = Path(__file__).resolve().parent
PI_SCRIPT = HERE / "pi_side_by_side.mjs"

FULL_SIZES = (20_000, 100_000)
QUICK_SIZES = (2_000, 10_000)
APPEND_SMALL = 100
APPEND_COUNT = 50

# pi 0.73.1 as measured for the issue (ms; peak RSS in GB).
PI_REFERENCE: dict[int, dict[str, float]] = {
    20_000: {"open": 483, "get_tree": 14, "build_session_context": 20, "get_branch": 13, "peak_rss": 0.3},
    100_000: {
        "open": 3254,
        "get_tree": 100,
        "build_session_context": 273,
        "get_branch": 261,
        "peak_rss": 1.0,
    },
}
OPS = ("open", "get_tree", "build_session_context", "get_branch")
PI_NAMES = {
    "open": "open",
    "get_tree": "getTree",
    "build_session_context": "buildSessionContext",
    "get_branch": "getBranch",
}


# ------------------------------------------------------------------------------------- timing


def _median(xs: list[float]) -> float:
    return statistics.median(xs)


def arbor_run(path: Path) -> dict[str, float]:
    """One sample (ms) of each operation, on a fresh ``SessionManager.open``."""
    gc.collect()
    # Results stay alive until every operation is timed: freeing them is not part of the
    # operation (pi's timings don't include garbage collection of the results either).
    t0 = time.perf_counter()
    manager = SessionManager.open(path)
    t1 = time.perf_counter()
    tree = manager.get_tree()
    t2 = time.perf_counter()
    context = manager.build_session_context()
    t3 = time.perf_counter()
    branch = manager.get_branch()
    t4 = time.perf_counter()
    manager.close()
    del manager, tree, context, branch
    return {
        op: (b - a) * 1000 for op, (a, b) in zip(OPS, ((t0, t1), (t1, t2), (t2, t3), (t3, t4)), strict=True)
    }


def check_agreement(path: Path, pi_answer: dict[str, Any]) -> None:
    """pi and Arbor must see the same session in the file (entries, path, context, leaf)."""
    manager = SessionManager.open(path)
    mine = {
        "entries": len(manager.get_entries()),
        "branch": len(manager.get_branch()),
        "messages": len(manager.build_session_context().messages),
        "leaf": manager.leaf_id,
    }
    manager.close()
    theirs = {k: pi_answer.get(k) for k in mine}
    if mine != theirs:
        raise RuntimeError(f"pi and Arbor disagree on {path.name}: pi {theirs}, Arbor {mine}")


def time_operations(
    path: Path, runs: int, pi: PiServer | None = None
) -> tuple[dict[str, list[float]], dict[str, list[float]] | None]:
    """``runs`` samples of each operation for Arbor (and pi), after a warm-up run of each.

    With pi, the runs are interleaved (pi, Arbor, pi, Arbor, ...), pi's in one warm node process as
    Arbor's are in this one, so that load from other programs on the machine falls on both alike.
    """
    arbor: dict[str, list[float]] = {op: [] for op in OPS}
    pi_samples: dict[str, list[float]] | None = {op: [] for op in OPS} if pi is not None else None
    if pi is not None:
        pi.run_once(path)  # warm-up
        check_agreement(path, pi.last)
    arbor_run(path)  # warm-up
    for _ in range(runs):
        if pi is not None and pi_samples is not None:
            sample = pi.run_once(path)
            for op in OPS:
                pi_samples[op].append(sample[PI_NAMES[op]])
        for op, ms in arbor_run(path).items():
            arbor[op].append(ms)
    return arbor, pi_samples


# ------------------------------------------------------------------------------------- memory

_RSS_CHILD = """
import json, sys
from desktop_app.session import SessionManager
def hwm():
    # VmHWM: this process's own peak. (getrusage's ru_maxrss is not: on Linux it keeps the peak of
    # the image before exec, i.e. of the big benchmark process that spawned this one.)
    for line in open('/proc/self/status'):
        if line.startswith('VmHWM:'):
            return int(line.split()[1])
    return 0
base = hwm()
m = SessionManager.open(sys.argv[1])
ctx = m.build_session_context()
print(json.dumps({'baseline_kib': base, 'vmhwm_kib': hwm(), 'messages': len(ctx.messages)}))
"""


def arbor_peak_rss(path: Path) -> dict[str, Any]:
    """Peak RSS (KiB) of a fresh interpreter that opens ``path`` and builds the context."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(HERE.parent) + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run(
        [sys.executable, "-c", _RSS_CHILD, str(path)], capture_output=True, text=True, check=True, env=env
    )
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


# ------------------------------------------------------------------------------------- pi


def find_pi() -> Path | None:
    """Where pi 0.73.1 is installed (outside the repo), if node and pi are both there."""
    if shutil.which("node") is None:
        return None
    base = Path(os.environ.get("PI_DIR", "/tmp/pi0731"))
    for candidate in (
        base / "node_modules/@mariozechner/pi-coding-agent/dist/core/session-manager.js",
        base / "dist/core/session-manager.js",
    ):
        if candidate.exists():
            return base
    return None


class PiServer:
    """pi 0.73.1 in a long-lived node process (``pi_side_by_side.mjs --serve``): one run per request."""

    def __init__(self, pi_dir: Path) -> None:
        self.proc = subprocess.Popen(
            ["node", "--expose-gc", str(PI_SCRIPT), "--pi", str(pi_dir), "--serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def run_once(self, path: Path) -> dict[str, float]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(f"{path.resolve()}\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"pi's node process ended (exit code {self.proc.poll()})")
        answer = json.loads(line)
        if "error" in answer:
            raise RuntimeError(f"pi failed on {path}: {answer['error']}")
        self.last = answer
        ms: dict[str, float] = answer["ms"]
        return ms

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def pi_peak_rss(pi_dir: Path, path: Path) -> int:
    out = subprocess.run(
        ["node", str(PI_SCRIPT), "--pi", str(pi_dir), "--rss", str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(json.loads(out.stdout)["peakKiB"])


# ------------------------------------------------------------------------------------- append


def _append_message(i: int) -> dict[str, Any]:
    text = (
        f"Append benchmark message {i}. " + "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 20
    )
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1_762_160_400_000 + i}


def append_cost(sources: list[Path], fsync: bool, count: int = APPEND_COUNT) -> list[list[float]]:
    """ms per ``append_message`` on fresh copies of ``sources`` (on the same disk as the repo).

    The sessions are appended to in turn (one message to each, ``count`` times), so that whatever
    else the machine does falls on all of them alike.
    """
    work = DATA_DIR / "append-tmp"
    work.mkdir(parents=True, exist_ok=True)
    copies = [work / f"copy-{i}-{source.name}" for i, source in enumerate(sources)]
    try:
        for source, copy in zip(sources, copies, strict=True):
            shutil.copyfile(source, copy)
        managers = [SessionManager.open(copy, fsync=fsync) for copy in copies]
        for manager in managers:
            manager.append_message(_append_message(-1))  # warm-up
        samples: list[list[float]] = [[] for _ in managers]
        for i in range(count):
            for manager, out in zip(managers, samples, strict=True):
                message = _append_message(i)
                t0 = time.perf_counter()
                manager.append_message(message)
                out.append((time.perf_counter() - t0) * 1000)
        for manager in managers:
            manager.close()
        return samples
    finally:
        for copy in copies:
            copy.unlink(missing_ok=True)


# ------------------------------------------------------------------------------------- run


def run(
    quick: bool = False, use_pi: bool = True, log: Callable[[str], None] | None = None
) -> list[dict[str, Any]]:
    """Every measurement as one row (a dict); :func:`markdown` renders them."""
    say = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
    sizes = QUICK_SIZES if quick else FULL_SIZES
    runs = 3 if quick else 5
    files: dict[int, tuple[Path, Any]] = {n: cached_session(n) for n in sizes}
    for n, (_, stats) in files.items():
        say(f"session {n:,}: {describe(stats)}")
    pi_dir = find_pi() if use_pi else None
    pi: PiServer | None = None
    if pi_dir is not None:
        say(f"pi 0.73.1 found in {pi_dir}: measured side by side")
        pi = PiServer(pi_dir)

    rows: list[dict[str, Any]] = []
    for n, (path, stats) in files.items():
        say(f"measuring {n:,} entries ({runs} runs after a warm-up) ...")
        try:
            samples, pi_samples = time_operations(path, runs, pi)
        except (RuntimeError, json.JSONDecodeError, KeyError, OSError) as exc:
            say(f"pi side-by-side failed, using the issue's reference only: {exc}")
            if pi is not None:
                pi.close()
            pi, pi_dir = None, None
            samples, pi_samples = time_operations(path, runs, None)
        ref = PI_REFERENCE.get(n, {})
        for op in OPS:
            arbor = _median(samples[op])
            pi_ms = _median(pi_samples[op]) if pi_samples else None
            rows.append(
                {
                    "table": "session",
                    "entries": n,
                    "file_mb": round(stats.bytes / 1e6, 1),
                    "measure": op,
                    "unit": "ms",
                    "arbor": arbor,
                    "pi_measured": pi_ms,
                    "pi_reference": ref.get(op),
                    "ratio": _ratio(arbor, pi_ms if pi_ms is not None else ref.get(op)),
                    "samples": samples[op],
                    "pi_samples": pi_samples[op] if pi_samples else None,
                }
            )
        say(f"peak RSS on {n:,} entries ...")
        rss = arbor_peak_rss(path)
        pi_rss = None
        if pi_dir is not None:
            try:
                pi_rss = pi_peak_rss(pi_dir, path)
            except (subprocess.CalledProcessError, json.JSONDecodeError, KeyError, ValueError) as exc:
                say(f"pi's peak RSS could not be measured: {exc}")
        arbor_gb = rss["vmhwm_kib"] * 1024 / 1e9
        pi_gb = pi_rss * 1024 / 1e9 if pi_rss is not None else None
        rows.append(
            {
                "table": "session",
                "entries": n,
                "file_mb": round(stats.bytes / 1e6, 1),
                "measure": "peak_rss",
                "unit": "GB",
                "arbor": arbor_gb,
                "arbor_baseline": rss["baseline_kib"] * 1024 / 1e9,
                "pi_measured": pi_gb,
                "pi_reference": ref.get("peak_rss"),
                "ratio": _ratio(arbor_gb, pi_gb if pi_gb is not None else ref.get("peak_rss")),
            }
        )

    if pi is not None:
        pi.close()

    big_n = sizes[-1]
    small_path, _ = cached_session(APPEND_SMALL)
    big_path = files[big_n][0]
    for fsync in (True, False):
        say(f"append cost (fsync {'on' if fsync else 'off'}) ...")
        small_samples, big_samples = append_cost([small_path, big_path], fsync)
        small, big = _median(small_samples), _median(big_samples)
        for n, value in ((APPEND_SMALL, small), (big_n, big)):
            rows.append(
                {
                    "table": "append",
                    "entries": n,
                    "fsync": fsync,
                    "measure": "append_message",
                    "unit": "ms",
                    "arbor": value,
                }
            )
        rows.append(
            {
                "table": "append",
                "entries": big_n,
                "fsync": fsync,
                "measure": f"ratio {big_n}/{APPEND_SMALL}",
                "unit": "x",
                "arbor": big / small,
            }
        )
    return rows


def _ratio(arbor: float, pi: float | None) -> float | None:
    return arbor / pi if pi else None


# ------------------------------------------------------------------------------------- output

_LABELS = {
    "open": "open",
    "get_tree": "get_tree / getTree",
    "build_session_context": "build_session_context / buildSessionContext",
    "get_branch": "get_branch / getBranch",
    "peak_rss": "peak RSS (open + context, fresh process)",
}


def _fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "–"
    if unit == "GB":
        return f"{value:.2f} GB"
    if unit == "x":
        return f"{value:.2f}×"
    if value >= 100:
        return f"{value:,.0f} ms"
    if value >= 10:
        return f"{value:.1f} ms"
    return f"{value:.2f} ms"


def markdown(rows: list[dict[str, Any]]) -> str:
    """The session table (pi next to Arbor) and the append table."""
    session = [r for r in rows if r.get("table") == "session"]
    measured = any(r.get("pi_measured") is not None for r in session)
    lines = [
        "| entries (file size) | measure | pi 0.73.1 (issue) | "
        + ("pi 0.73.1 (measured here) | " if measured else "")
        + "Arbor | Arbor / pi |",
        "|---|---|---:|" + ("---:|" if measured else "") + "---:|---:|",
    ]
    for r in session:
        cells = [
            f"{r['entries']:,} ({r['file_mb']:.0f} MB)",
            _LABELS.get(r["measure"], r["measure"]),
            _fmt(r.get("pi_reference"), r["unit"]),
        ]
        if measured:
            cells.append(_fmt(r.get("pi_measured"), r["unit"]))
        cells.append(_fmt(r["arbor"], r["unit"]))
        cells.append(f"{r['ratio']:.2f}" if r.get("ratio") is not None else "–")
        lines.append("| " + " | ".join(cells) + " |")
    if measured:
        lines.append("")
        lines.append("Arbor / pi is taken against pi measured here, on the same files in the same run.")
    append = [r for r in rows if r.get("table") == "append"]
    if append:
        lines += ["", "| append_message | fsync on | fsync off |", "|---|---:|---:|"]
        keys = []
        for r in append:
            key = (r["entries"], r["measure"])
            if key not in keys:
                keys.append(key)
        for entries, measure in keys:
            on = next(r for r in append if (r["entries"], r["measure"]) == (entries, measure) and r["fsync"])
            off = next(
                r for r in append if (r["entries"], r["measure"]) == (entries, measure) and not r["fsync"]
            )
            label = (
                f"median of {APPEND_COUNT}, {entries:,}-entry session"
                if measure == "append_message"
                else measure
            )
            lines.append(f"| {label} | {_fmt(on['arbor'], on['unit'])} | {_fmt(off['arbor'], off['unit'])} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=TITLE)
    parser.add_argument("--quick", action="store_true", help="2,000 and 10,000 entries, 3 runs")
    parser.add_argument("--no-pi", action="store_true", help="do not measure pi even if it is installed")
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args(argv)
    rows = run(quick=args.quick, use_pi=not args.no_pi)
    print(f"## {TITLE}\n")
    print(markdown(rows))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
