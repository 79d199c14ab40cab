"""Claude Code transcripts: a 100 MB transcript to a first picture (issue 27 point 5, DESIGN.md §14).

Generates a realistic transcript (``generate``): turns of a prompt, an assistant reply written over
three lines with one ``message.id`` (thinking, text, a tool call), a tool result of a few KB with the
``toolUseResult`` copy Claude Code keeps, a ``turn_duration`` line; a subagent's sidechain every 200
turns; a compact boundary + summary every 1,500 turns; rewinds now and then. Then measures:

* engine: read (``orjson``, line by line), the tree, the pi conversion, the read-only session
  (``open_transcript``), median of ``runs``;
* ``arbor FILE``'s path to a first picture, in a fresh interpreter: from the process start (imports
  included) until ``open_window`` returned (the graph's first layout on screen) and the window was
  painted once (``grab``). Target: ≤ 3 s for 100 MB (Claude Code itself takes ~14 s to resume one).

    .venv/bin/python benchmarks/bench_claude_code.py [--mb 100] [--runs 3] [--quick]

``--before CHECKOUT`` (e.g. ``git archive`` of an older commit unpacked): ``arbor FILE`` itself, the
way ``run_gui`` opens it (a big transcript deferred: the first picture's nodes converted first),
this checkout and the other interleaved round by round (:func:`side_by_side`), medians.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import orjson  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TITLE = "Claude Code transcripts: open to a first picture (target ≤ 3 s at 100 MB)"
_WORDS = ("forecast radar tile cache station wind gust visibility cloud layer parser token render "
          "chart hourly bucket timezone offset celsius kelvin fahrenheit toggle setting menu fetch "
          "request header policy browser reuse map layer zoom pan legend unit test fixture").split()


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words))


def generate(path: Path, megabytes: float, seed: int = 27) -> dict[str, int]:
    """Write a transcript of about ``megabytes`` MB at ``path``; returns its counts."""
    rng = random.Random(seed)
    session = "b3a1c2d4-0000-4e5f-8a9b-123456789abc"
    target = int(megabytes * 1_000_000)
    code = "\n".join(f"export function {rng.choice(_WORDS)}_{i}(x: number) {{ return x * {i}; }}" for i in range(90))
    counter = 0
    second = 0
    written = 0
    lines_out = 0
    turns = 0
    compactions = 0
    parent: str | None = None
    base = {"isSidechain": False, "userType": "external", "cwd": "/home/kim/code/weather-app", "sessionId": session,
            "version": "2.1.12", "gitBranch": "main"}

    def line(kind: str, par: str | None, body: dict[str, Any], **extra: Any) -> str:
        nonlocal counter, second, written, lines_out
        counter += 1
        second += 3
        uid = f"{counter:08x}-0000-4000-8000-{counter:012x}"
        obj = {"parentUuid": par, **base, "type": kind, **body, **extra, "uuid": uid,
               "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(1_790_000_000 + second)) + ".000Z"}
        data = orjson.dumps(obj) + b"\n"
        handle.write(data)
        written += len(data)
        lines_out += 1
        return uid

    with open(path, "wb") as handle:
        while written < target:
            turns += 1
            prompt = line("user", parent, {"message": {"role": "user", "content": _text(rng, 30)}})
            msg_id = f"msg_{turns:020d}"
            call = f"toolu_{turns:020d}"
            usage = {"input_tokens": 4, "cache_creation_input_tokens": 900, "cache_read_input_tokens": 40000,
                     "output_tokens": 300}
            blocks = [{"type": "thinking", "thinking": _text(rng, 120), "signature": "EqQBCkYIBxgCKkA" * 8},
                      {"type": "text", "text": _text(rng, 60)},
                      {"type": "tool_use", "id": call, "name": "Read", "input": {"file_path": f"/src/{turns}.ts"}}]
            last = prompt
            for i, block in enumerate(blocks):
                message = {"model": "claude-sonnet-4-5-20250929", "id": msg_id, "type": "message", "role": "assistant",
                           "content": [block], "stop_reason": "tool_use" if i == 2 else None, "stop_sequence": None,
                           "usage": usage}
                last = line("assistant", last, {"message": message}, requestId=f"req_{turns}")
            result = line("user", last, {"message": {"role": "user", "content": [
                {"tool_use_id": call, "type": "tool_result", "content": code}]}},
                toolUseResult={"type": "text", "file": {"filePath": f"/src/{turns}.ts", "content": code}})
            reply = line("assistant", result, {"message": {
                "model": "claude-sonnet-4-5-20250929", "id": msg_id + "b", "type": "message", "role": "assistant",
                "content": [{"type": "text", "text": _text(rng, 50)}], "stop_reason": "end_turn", "stop_sequence": None,
                "usage": usage}})
            parent = line("system", reply, {"subtype": "turn_duration", "durationMs": 4000, "isMeta": True})
            if turns % 37 == 0:  # a rewind: another prompt under the same reply, answered
                alt = line("user", reply, {"message": {"role": "user", "content": _text(rng, 20)}})
                line("assistant", alt, {"message": {"model": "claude-sonnet-4-5-20250929", "id": msg_id + "r",
                                                    "type": "message", "role": "assistant",
                                                    "content": [{"type": "text", "text": _text(rng, 40)}],
                                                    "stop_reason": "end_turn", "usage": usage}})
            if turns % 200 == 0:  # a subagent's lines mixed in
                side = line("user", None, {"message": {"role": "user", "content": _text(rng, 20)}}, isSidechain=True)
                for _ in range(4):
                    side = line("assistant", side, {"message": {"model": "claude-haiku", "id": f"s{counter}", "type": "message",
                                                                "role": "assistant", "content": [{"type": "text", "text": _text(rng, 40)}],
                                                                "stop_reason": "end_turn", "usage": usage}}, isSidechain=True)
            if turns % 1500 == 0:
                compactions += 1
                boundary = line("system", None, {"subtype": "compact_boundary", "content": "Conversation compacted",
                                                 "level": "info", "isMeta": False},
                                logicalParentUuid=parent, compactMetadata={"trigger": "auto", "preTokens": 160000})
                parent = line("user", boundary, {"message": {"role": "user", "content": "This session is being continued "
                                                             "from a previous conversation. Summary: " + _text(rng, 300)}},
                              isCompactSummary=True)
    return {"bytes": written, "lines": lines_out, "turns": turns, "compactions": compactions}


_CHILD = """
import sys, time
t0 = time.perf_counter()
sys.path.insert(0, sys.argv[1])
from desktop_app.ui.testing import open_window
window = open_window(sys.argv[2])
window.grab()
t1 = time.perf_counter()
print(round(t1 - t0, 3), len(window.session.index.by_id), window.graph.layout_kind, round(time.process_time(), 3))
"""


def _first_picture(path: Path, home: Path) -> tuple[float, float, float, int, str]:
    """Wall seconds from spawning ``python`` to the painted window, the same from inside it, and the
    CPU seconds the child had used by then (less sensitive than wall time to a machine shared by others)."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "ARBOR_HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / "claude"),
           "PI_CODING_AGENT_DIR": str(home / "pi")}
    env.pop("ANTHROPIC_API_KEY", None)
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", _CHILD, str(ROOT), str(path)], env=env, capture_output=True,
                         text=True, check=True, timeout=120).stdout.split()
    wall = time.perf_counter() - start
    # the child's CPU time (all its threads) at the moment of the picture; the dot layout that runs
    # on in a grandchild process afterwards is not counted
    return wall, float(out[0]), float(out[3]), int(out[1]), out[2]


def run(quick: bool = False, megabytes: float | None = None, runs: int | None = None) -> list[dict[str, Any]]:
    from desktop_app.transcripts import open_transcript
    from desktop_app.transcripts.convert import convert
    from desktop_app.transcripts.lines import read_lines
    from desktop_app.transcripts.model import build_transcript

    size = megabytes if megabytes is not None else (10 if quick else 100)
    count = runs if runs is not None else (1 if quick else 3)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="arbor-bench-cc-") as tmp:
        path = Path(tmp) / "transcript.jsonl"
        made = generate(path, size)
        times: dict[str, list[float]] = {"read": [], "tree": [], "convert": [], "open": [], "first": [], "inside": [],
                                         "cpu": []}
        entries = 0
        layout = ""
        for _ in range(count):
            gc.collect()
            gc.disable()  # as open_transcript does (gc_paused_then_frozen), phase by phase
            t0 = time.perf_counter()
            lines = read_lines(path)
            t1 = time.perf_counter()
            transcript = build_transcript(lines, path)
            t2 = time.perf_counter()
            convert(transcript)
            t3 = time.perf_counter()
            gc.enable()
            del lines, transcript
            open_transcript(path)
            t4 = time.perf_counter()
            times["read"].append(t1 - t0)
            times["tree"].append(t2 - t1)
            times["convert"].append(t3 - t2)
            times["open"].append(t4 - t3)
            wall, inside, cpu, entries, layout = _first_picture(path, Path(tmp) / "home")
            times["first"].append(wall)
            times["inside"].append(inside)
            times["cpu"].append(cpu)
        median = {k: statistics.median(v) for k, v in times.items()}
        rows.append({"MB": round(made["bytes"] / 1e6, 1), "lines": made["lines"], "entries": entries,
                     "compactions": made["compactions"], "read s": round(median["read"], 2),
                     "tree s": round(median["tree"], 2), "convert s": round(median["convert"], 2),
                     "open_transcript s": round(median["open"], 2), "launch → first picture s": round(median["first"], 2),
                     "in-process s": round(median["inside"], 2), "CPU to first picture s": round(median["cpu"], 2),
                     "layout": layout, "runs": count})
    return rows


_ARBOR_CHILD = r"""
import importlib.abc, importlib.util, os, sys, time
spawned = float(sys.argv[3])
sys.path.insert(0, sys.argv[1])


def now():
    return round((time.time() - spawned) * 1000)


def patch(app):  # run_gui calls finish_loading_in_background(window, loop) right after window.show()
    original = app.finish_loading_in_background

    def hooked(window, loop):
        from PySide6.QtCore import QEvent, QObject, QTimer

        marks = {"window_shown": now()}

        def done():
            if window.graph.layout_kind == "none":
                return
            marks["first_picture"] = now()
            marks["cpu"] = round(time.process_time() * 1000)
            marks["entries"] = len(window.session.index.by_id)
            print(marks, flush=True)
            os._exit(0)

        class FirstPaint(QObject):
            def eventFilter(self, watched, event):
                if event.type() == QEvent.Type.Paint:
                    QTimer.singleShot(0, done)
                return False

        window._bench_first_paint = FirstPaint(window)
        window.graph.viewport().installEventFilter(window._bench_first_paint)
        original(window, loop)

    app.finish_loading_in_background = hooked


class Hook(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != "desktop_app.ui.app":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        load = spec.loader.exec_module

        def exec_module(module):
            load(module)
            patch(module)

        spec.loader.exec_module = exec_module
        return spec


sys.meta_path.insert(0, Hook())
from desktop_app.cli import main
main([sys.argv[2]])
"""


def _spawn_arbor(root: Path, path: Path) -> dict[str, Any]:
    """``arbor FILE`` of ``root`` in a fresh interpreter, nothing imported ahead of ``cli.main`` (so a
    checkout that works while the GUI imports is measured doing so): ms from the spawn to the window
    shown and to the graph's first painted picture, the CPU ms the process had used by then (its own:
    a child process it started would not be counted)."""
    import ast

    from benchmarks import bench_gui

    with tempfile.TemporaryDirectory(prefix="arbor-bench-cc-") as tmp:
        env = bench_gui._child_env(Path(tmp) / "home", anthropic=False)
        env["PYTHONPATH"] = str(root)
        spawned = time.time()
        proc = subprocess.run([sys.executable, "-c", _ARBOR_CHILD, str(root), str(path), repr(spawned)], cwd=root,
                              env=env, capture_output=True, text=True, timeout=120)
        lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
        if not lines:
            raise RuntimeError(f"arbor child in {root} exited with {proc.returncode}:\n{proc.stderr[-2000:]}")
        result: dict[str, Any] = ast.literal_eval(lines[-1])
        return result


def side_by_side(path: Path, runs: int, checkouts: dict[str, Path]) -> dict[str, dict[str, float]]:
    """``arbor FILE`` itself (``cli.main`` → ``run_gui``, the deferred open included) in a fresh process per run, each checkout in turn within a round (:func:`_spawn_arbor`).
    Medians over ``runs``; the first round of each checkout fills the bytecode cache, untimed."""
    samples: dict[str, dict[str, list[float]]] = {name: {} for name in checkouts}
    for root in checkouts.values():
        _spawn_arbor(root, path)
    for i in range(runs):
        print(f"  round {i + 1}/{runs}", file=sys.stderr, flush=True)
        for name, root in checkouts.items():
            for key, value in _spawn_arbor(root, path).items():
                samples[name].setdefault(key, []).append(value)
    return {name: {k: round(statistics.median(v)) for k, v in s.items()} | {"runs": runs}
            for name, s in samples.items()}


def markdown(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "(no rows)"
    keys = list(rows[0])
    lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    lines += ["| " + " | ".join(str(row[k]) for k in keys) + " |" for row in rows]
    return "\n".join(lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, default=None)
    parser.add_argument("--runs", type=int, default=None)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--before", type=Path, help="another checkout, run side by side with this one "
                        "through `arbor FILE` (first picture, whole transcript installed), round by round")
    args = parser.parse_args()
    if args.before is not None:
        with tempfile.TemporaryDirectory(prefix="arbor-bench-cc-") as tmp:
            file = Path(tmp) / "transcript.jsonl"
            print(json.dumps(generate(file, args.mb or 100)), file=sys.stderr)
            result = side_by_side(file, args.runs or 5, {"before": args.before.resolve(), "this checkout": ROOT})
        print(json.dumps(result, indent=1))
    else:
        print(json.dumps(run(args.quick, args.mb, args.runs), indent=1))
