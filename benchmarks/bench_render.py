"""Chat render stall (issue 13 item 4): the longest UI-thread stall while a long or hostile reply is shown.

A real ``ChatPanel`` (offscreen Qt, 700 × 900) shows ``[user message, reply]`` (``set_context`` from
the event loop, then whatever painting and render slices follow) while a 5 ms precise ``QTimer``
heartbeat runs; stall = longest gap between two beats − 5 ms, from just before ``set_context``
until the rich render is on screen (the scheduler idle, the row painted). Streaming: the reply
arrives as 40 growing partial messages, one every 25 ms, the way the agent's ``StreamUpdated``
events feed the live row, then the finished message.

Two modes, side by side in one run, the same code and process:

* **before** — the whole row rendered synchronously in the paint that first needs it (what the
  chat did before slicing: one ``render_message`` → documents → layout, all in one go; here the
  scheduler's slice budget is unlimited, so its first slice does everything, and no segment is
  kept for re-use, so a streaming reply is laid out whole on every re-render, as it was);
* **after** — the sliced render (``ui/chat/sliced.py``): bounded slices, one per event-loop turn.

Each case and mode runs in a fresh process (after one short warm-up message, as in a window that
has shown messages before), ``--runs`` times (default 5) with every cache cleared between runs (a
fresh panel, the markdown caches emptied); the median is reported, and the worst. The same runs
also report the longest single slice of render work and the idle noise floor (the longest gap
while nothing happens), since on a busy machine the heartbeat itself stalls.

``.venv/bin/python benchmarks/bench_render.py [--quick] [--runs N] [--json FILE]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TITLE = "Chat render: longest UI-thread stall showing a long or hostile reply (before / after slicing)"
HEARTBEAT_MS = 5
FRAME_MS = 16.0

_PARA = "Lorem ipsum dolor sit amet, **consectetur** adipiscing `elit`, [a link](https://example.invalid). " * 6
_UNIT = (
    f"## Heading\n\n{_PARA}\n\n- item one\n- item two\n  - nested\n\n1. first\n2. second\n\n"
    f"```python\ndef f(x):\n    return x + 1\n```\n\n> quote {_PARA}\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
)
#: name -> (expression for the reply's text, streamed?)
CASES: dict[str, tuple[str, bool]] = {
    '`"- " × 10,000 + text` (nested lists, capped at 16)': ('"- " * 10_000 + "text"', False),
    "200,000-character reply: prose, lists, code, quotes, tables": ("(UNIT * 400)[:200_000]", False),
    "200,000-character reply: prose paragraphs only": ('(PARA + "\\n\\n") * 400', False),
    "100,000-character reply, streamed in 40 updates": ("(UNIT * 200)[:100_000]", True),
}

_CHILD = r"""
import json, statistics, sys, time
from PySide6.QtCore import QEventLoop, Qt, QTimer
from PySide6.QtWidgets import QApplication
app = QApplication([])
from desktop_app.ui import markdown as md
from desktop_app.ui.chat import ChatPanel
from desktop_app.ui.chat.sliced import SliceScheduler
from benchmarks.bench_render import _PARA as PARA, _UNIT as UNIT

expr, streamed, mode, runs = sys.argv[1], sys.argv[2] == "1", sys.argv[3], int(sys.argv[4])
text = eval(expr)

def spin(ms):
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()

slice_ms = []
_run = SliceScheduler._run
def timed_run(self, job):
    began = time.perf_counter()
    _run(self, job)
    slice_ms.append((time.perf_counter() - began) * 1000)
SliceScheduler._run = timed_run

def longest_gap(beats, start, end):
    points = [start] + [b for b in beats if start < b <= end] + [end]
    return max(b - a for a, b in zip(points, points[1:])) * 1000 - HEARTBEAT_MS

def reply(body):
    return {"role": "assistant", "content": [{"type": "text", "text": body}], "stopReason": "stop", "model": "m"}

# Warm-up, as in a window that has shown messages before: Qt's markdown parser, the fonts and the
# highlighter's regexes are initialised once per process, not per message.
warm = ChatPanel()
warm.resize(700, 900)
warm.show()
warm.set_context([reply(UNIT)])
spin(200)
warm.deleteLater()

results = []
for run in range(runs):
    md.markdown_to_html.cache_clear()
    md._prose_html_cached.cache_clear()
    panel = ChatPanel()
    panel.resize(700, 900)
    panel.show()
    scheduler = panel.delegate.scheduler
    if mode == "before":
        scheduler.slice_chars, scheduler.cache_limit = 10**12, 0
    spin(200)
    beats = []
    beat = QTimer()
    beat.setTimerType(Qt.TimerType.PreciseTimer)
    beat.setInterval(HEARTBEAT_MS)
    beat.timeout.connect(lambda: beats.append(time.perf_counter()))
    beat.start()
    spin(50)
    idle_start = time.perf_counter()
    spin(500)  # nothing happening: the machine's own noise floor
    idle = longest_gap(beats, idle_start, time.perf_counter())
    slice_ms.clear()
    start = time.perf_counter()
    user = {"role": "user", "content": "show me"}
    if streamed:
        QTimer.singleShot(0, lambda: (panel.set_context([user]), panel.begin_stream()))
        step = len(text) // 40
        for n in range(1, 41):
            QTimer.singleShot(25 * n, lambda n=n: panel.model.set_stream_message(reply(text[: n * step])))
        QTimer.singleShot(25 * 41, lambda: panel.end_stream(reply(text)))
        spin(25 * 41 + 10)
    else:
        QTimer.singleShot(0, lambda: panel.set_context([user, reply(text)]))
        spin(10)
    while True:
        spin(30)
        doc = panel.delegate.document(panel.model, 1)
        if not scheduler.busy and not doc.placeholder:
            break
    panel.repaint()
    spin(30)
    end = time.perf_counter()
    beat.stop()
    results.append({"stall": longest_gap(beats, start, end), "idle": idle, "slice": max(slice_ms),
                    "slices": len(slice_ms)})
    panel.deleteLater()
    spin(20)
print(json.dumps(results))
""".replace("HEARTBEAT_MS", str(HEARTBEAT_MS))


def _child(expr: str, streamed: bool, mode: str, runs: int) -> list[dict[str, float]]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), QT_QPA_PLATFORM="offscreen")
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, expr, "1" if streamed else "0", mode, str(runs)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=True,
    )
    results: list[dict[str, float]] = json.loads(done.stdout.strip().splitlines()[-1])
    return results


def run(quick: bool = False, runs: int | None = None) -> list[dict[str, Any]]:
    """One row per case: median and worst stall (ms) before and after slicing."""
    runs = runs or (3 if quick else 5)
    rows = []
    for name, (expr, streamed) in CASES.items():
        row: dict[str, Any] = {"case": name, "runs": runs}
        idle: list[float] = []
        for mode in ("before", "after"):
            results = _child(expr, streamed, mode, runs)
            stalls = [r["stall"] for r in results]
            row[f"{mode}_median_ms"] = round(statistics.median(stalls), 1)
            row[f"{mode}_max_ms"] = round(max(stalls), 1)
            row[f"{mode}_slice_ms"] = round(statistics.median(r["slice"] for r in results), 1)
            row[f"{mode}_slices"] = round(statistics.median(r["slices"] for r in results))
            idle += [r["idle"] for r in results]
        row["idle_ms"] = round(statistics.median(idle), 1)
        rows.append(row)
    return rows


def markdown(rows: list[dict[str, Any]]) -> str:
    lines = [
        f"Medians of {rows[0]['runs'] if rows else 0} runs. *Stall*: longest heartbeat gap − {HEARTBEAT_MS} ms "
        "(worst run in brackets). *Longest slice*: the longest single piece of render work the UI thread ran "
        "(scheduler slices; before: the one synchronous render), and how many there were. *Idle*: the "
        "longest gap with nothing to do (the machine's own noise floor), same runs.",
        "",
        "| reply shown | stall before | stall after | longest slice before | longest slice after (slices) | idle |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['case']} | {row['before_median_ms']:,.1f} ms ({row['before_max_ms']:,.1f}) "
            f"| {row['after_median_ms']:,.1f} ms ({row['after_max_ms']:,.1f}) "
            f"| {row['before_slice_ms']:,.1f} ms | {row['after_slice_ms']:,.1f} ms ({row['after_slices']}) "
            f"| {row['idle_ms']:,.1f} ms |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 runs per case and mode")
    parser.add_argument("--runs", type=int, help="runs per case and mode (default 5)")
    parser.add_argument("--json", metavar="FILE", help="write the rows to FILE")
    args = parser.parse_args(argv)
    rows = run(quick=args.quick, runs=args.runs)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1), encoding="utf-8")
    print(f"\n## {TITLE}\n")
    print(markdown(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
