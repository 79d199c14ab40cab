"""Compaction engine benchmark (issue 3): ``prepare_compaction`` and ``estimate_context_tokens``.

Measured on the active path (root → leaf) of the generated sessions of ``benchmarks/generate.py``
(20,000 and 100,000 entries, ≈1.35 KB per line, tool calls, ≈72% of entries on the active path;
``--quick``: 2,000 and 10,000), as medians of 5 runs after one warm-up (``--quick``: 3):

* ``prepare_compaction(path)`` with pi's default settings: what ``/compact`` plans. Its cost is linear
  in the path because ``tokensBefore`` rebuilds the context of the whole path (pi 0.73.1's rule);
  the cut-point scan itself only covers the range since the previous compaction.
* ``prepare_compaction``, worst case: the path with its compaction entries removed and
  ``keep_recent_tokens`` unbounded, so the cut-point scan estimates every message of the path.
* ``estimate_context_tokens(context)``: the context meter at the leaf (bounded by the last compaction).
* ``estimate_context_tokens``, worst case: every message of the path with no usage to start from, so
  every message is estimated (chars/4 in UTF-16 units, tool-call arguments as JavaScript JSON).

Linear scaling shows as a time ratio (100k / 20k) close to the ratio of path lengths.

``.venv/bin/python benchmarks/bench_compaction.py [--quick] [--runs N]``
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.generate import cached_session, describe  # noqa: E402
from desktop_app.compaction.prepare import compaction_message_from_entry, prepare_compaction  # noqa: E402
from desktop_app.compaction.tokens import CompactionSettings, estimate_context_tokens  # noqa: E402
from desktop_app.session import SessionManager  # noqa: E402
from desktop_app.session.context import context_from_path  # noqa: E402

TITLE = "Compaction engine: prepare_compaction and estimate_context_tokens on the active path (medians)"
FULL_SIZES = (20_000, 100_000)
QUICK_SIZES = (2_000, 10_000)
UNBOUNDED = CompactionSettings(keep_recent_tokens=10**15)

MEASURES: dict[str, str] = {
    "prepare": "prepare_compaction(path), default settings",
    "prepare_worst": "prepare_compaction, whole path in range (no compactions, keep=∞)",
    "estimate_context": "estimate_context_tokens(context at the leaf)",
    "estimate_worst": "estimate_context_tokens(every path message, no usage)",
}


def _median_ms(fn: Callable[[], object], runs: int) -> float:
    fn()  # warm-up
    samples: list[float] = []
    for _ in range(runs):
        gc.collect()
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def _without_usage(message: dict[str, Any]) -> dict[str, Any]:
    if message.get("role") != "assistant":
        return message
    return {k: v for k, v in message.items() if k != "usage"}


def measure(path_entries: list[dict[str, Any]], runs: int) -> dict[str, float]:
    """Median milliseconds of each measure on one active path."""
    context = context_from_path(path_entries).messages
    no_compactions = [e for e in path_entries if e.get("type") != "compaction"]
    all_messages = [m for m in map(compaction_message_from_entry, path_entries) if m is not None]
    no_usage = [_without_usage(m) for m in all_messages]
    assert estimate_context_tokens(no_usage).last_usage_index is None
    return {
        "prepare": _median_ms(lambda: prepare_compaction(path_entries), runs),
        "prepare_worst": _median_ms(lambda: prepare_compaction(no_compactions, UNBOUNDED), runs),
        "estimate_context": _median_ms(lambda: estimate_context_tokens(context), runs),
        "estimate_worst": _median_ms(lambda: estimate_context_tokens(no_usage), runs),
    }


def run(quick: bool = False, runs: int | None = None) -> list[dict[str, Any]]:
    sizes = QUICK_SIZES if quick else FULL_SIZES
    runs = runs or (3 if quick else 5)
    rows: list[dict[str, Any]] = []
    for n in sizes:
        file, stats = cached_session(n)
        print(f"session {n:,}: {describe(stats)}", file=sys.stderr, flush=True)
        manager = SessionManager.open(file)
        path_entries = manager.get_branch()
        messages = sum(1 for e in path_entries if compaction_message_from_entry(e) is not None)
        context = context_from_path(path_entries).messages
        print(f"measuring {n:,} entries ({runs} runs after a warm-up) ...", file=sys.stderr, flush=True)
        for key, ms in measure(path_entries, runs).items():
            rows.append(
                {
                    "entries": n,
                    "path_entries": len(path_entries),
                    "path_messages": messages,
                    "context_messages": len(context),
                    "measure": key,
                    "ms": ms,
                    "us_per_path_entry": ms * 1000 / len(path_entries),
                }
            )
        manager.close()
    return rows


def markdown(rows: list[dict[str, Any]]) -> str:
    sizes = sorted({r["entries"] for r in rows})
    by = {(r["entries"], r["measure"]): r for r in rows}
    head = ["measure"] + [
        f"{n:,} entries (path {by[(n, 'prepare')]['path_entries']:,})" for n in sizes if (n, "prepare") in by
    ]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    if len(sizes) >= 2:
        lines[0] = lines[0][:-1] + f"| ratio {sizes[-1] // 1000}k / {sizes[0] // 1000}k |"
        lines[1] += "---:|"
    for key, label in MEASURES.items():
        cells = [f"`{label}`"]
        for n in sizes:
            row = by.get((n, key))
            cells.append(f"{row['ms']:,.2f} ms ({row['us_per_path_entry']:.2f} µs/entry)" if row else "–")
        if len(sizes) >= 2 and (sizes[0], key) in by and (sizes[-1], key) in by:
            cells.append(f"{by[(sizes[-1], key)]['ms'] / by[(sizes[0], key)]['ms']:.2f}")
        lines.append("| " + " | ".join(cells) + " |")
    if len(sizes) >= 2 and (sizes[0], "prepare") in by and (sizes[-1], "prepare") in by:
        small, big = by[(sizes[0], "prepare")], by[(sizes[-1], "prepare")]
        lines += [
            "",
            f"Path length ratio {big['path_entries'] / small['path_entries']:.2f} "
            f"({small['path_entries']:,} → {big['path_entries']:,} entries on the active path; "
            f"context at the leaf: {small['context_messages']:,} and {big['context_messages']:,} messages). "
            "A time ratio close to the path ratio is linear scaling; the leaf-context estimate is bounded by "
            "the last compaction and stays flat.",
        ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="2,000 and 10,000 entries, 3 runs")
    parser.add_argument("--runs", type=int, help="timed runs per measure (after one warm-up)")
    args = parser.parse_args(argv)
    print(f"## {TITLE}\n")
    print(markdown(run(quick=args.quick, runs=args.runs)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
