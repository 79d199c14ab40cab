"""Issue 28 side by side with pi in one run: the first picture, the open's stall, compaction memory, imports.

``.venv/bin/python benchmarks/bench_scale.py [--entries 100000] [--runs 3] [--before CHECKOUT] [--json FILE]``

For each session size (``benchmarks/generate.py``), in fresh processes, interleaved run by run:

* ``arbor FILE`` (this checkout, and with ``--before`` another checkout, e.g. a worktree of an older
  commit): ``bench_gui.py``'s ``open`` child, spawn → the graph's first painted picture; then until
  the whole file is parsed and installed (a deferred open, issue 28) and the whole graph painted; the
  longest event-loop gap meanwhile (a 5 ms heartbeat from ``show()``), the import time (from the
  interpreter's start until ``desktop_app.ui.main_window`` and the graph are imported) and peak RSS;
* node opening the file with pi 0.73.1 (``pi_side_by_side.mjs --rss``: spawn → exit). pi is looked
  for in ``PI_DIR`` (default ``/tmp/pi0731``), then in ``/work/shared/oracle``.

Then, once per size (``--runs`` rounds, interleaved, medians), **compaction memory**: a fresh process opens the session as ``arbor`` does
(``SessionManager.open``), compacts it with the Anthropic provider against the fake Anthropic server
(``tests/fakes/anthropic_server.py``, run in a process of its own so that the request it receives is
not counted) and reports peak RSS (``VmHWM``) after opening and after the compaction, and the request's
size. Twice: on the generated session (whose newest compaction is near the leaf), and on the same
session with its compaction entries taken out (``…-nocompact.jsonl``: the first compaction of a
100,000-entry session, which summarizes the whole active path: the worst case).

Medians and ratios are printed as a markdown table. Not part of ``run_all.py`` (it has no ``run(quick)``):
a run at 100,000 entries takes ~5 minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import bench_gui  # noqa: E402

TARGET_RATIO = 0.3  #: first picture / pi's open (issue 28)
TARGET_STALL_MS = 50.0  #: longest gap from the first picture until the whole graph is on screen
TARGET_COMPACTION_RSS = 0.5e9  #: bytes


# ====================================================================================== pi


def _pi_command(file: Path) -> list[str] | None:
    for pi in (os.environ.get("PI_DIR", "/tmp/pi0731"), "/work/shared/oracle"):
        if (Path(pi) / "node_modules/@mariozechner/pi-coding-agent").is_dir():
            return ["node", str(bench_gui.PI_SCRIPT), "--pi", pi, "--rss", str(file)]
    return None


# ====================================================================================== first picture


def _spawn_open(root: Path, file: Path) -> dict[str, Any]:
    """``root``'s ``bench_gui.py --child open`` (the same protocol in every checkout since issue 10)."""
    with tempfile.TemporaryDirectory(prefix="arbor-bench-scale-") as tmp:
        out = Path(tmp) / "result.json"
        env = bench_gui._child_env(Path(tmp) / "home", anthropic=False)
        env["PYTHONPATH"] = str(root)
        env["PYTHONPYCACHEPREFIX"] = str(ROOT / "benchmarks" / ".data" / "pycache")
        spawned = time.time()
        params = json.dumps({"file": str(file), "tmp": tmp})
        proc = subprocess.run(
            [sys.executable, str(root / "benchmarks" / "bench_gui.py"), "--child", "open", params, str(out),
             repr(spawned)],
            cwd=root, env=env, capture_output=True, text=True, timeout=bench_gui.CHILD_TIMEOUT,
        )
        if proc.returncode != 0 or not out.exists():
            raise RuntimeError(f"open child in {root} exited with {proc.returncode}:\n{proc.stderr[-2000:]}")
        result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
        return result


def _open_figures(r: dict[str, Any]) -> dict[str, float | None]:
    complete = r.get("complete_paint_end")
    return {
        "first_picture": r.get("first_paint_end"),
        "loaded": r.get("loaded", r.get("after_open")),  # before issue 28 the open parsed everything
        "complete": complete,
        "stall": (r.get("beats") or {}).get("stall_ms"),
        "imports": r["gui_imported"] - r["interpreter_ready"],
        "engine_open": r["after_open"] - r["before_open"],
        "peak_rss": r.get("peak_rss"),
    }


def first_picture(file: Path, runs: int, checkouts: dict[str, Path]) -> dict[str, Any]:
    pi = _pi_command(file)
    samples: dict[str, dict[str, list[float]]] = {name: {} for name in checkouts}
    samples["pi"] = {}
    for root in checkouts.values():
        _spawn_open(root, file)  # untimed: fills the bytecode cache
    with tempfile.TemporaryDirectory(prefix="arbor-bench-scale-pi-") as tmp:
        env = bench_gui._child_env(Path(tmp) / "home", anthropic=False)
        if pi is not None:
            bench_gui._wall(pi, env)
        for i in range(runs):
            print(f"  run {i + 1}/{runs}: {', '.join(checkouts)}, pi ...", file=sys.stderr, flush=True)
            for name, root in checkouts.items():
                for key, value in _open_figures(_spawn_open(root, file)).items():
                    if value is not None:
                        samples[name].setdefault(key, []).append(value)
            if pi is not None:
                took, out = bench_gui._wall(pi, env)
                samples["pi"].setdefault("open", []).append(took)
                peak = json.loads(out.strip().splitlines()[-1]).get("peakKiB")
                if peak:
                    samples["pi"].setdefault("peak_rss", []).append(peak * 1024)
    medians = {name: {k: statistics.median(v) for k, v in s.items()} for name, s in samples.items()}
    return {"samples": samples, "medians": medians}


# ====================================================================================== compaction memory


def _no_compaction_copy(file: Path) -> Path:
    """The session with its compaction entries taken out (each one's children re-parented to its
    parent): its first compaction summarizes the whole active path. Cached next to the file."""
    target = file.with_name(file.stem + "-nocompact.jsonl")
    if target.exists() and target.stat().st_mtime >= file.stat().st_mtime:
        return target
    head = re.compile(rb'^\{"type":"compaction","id":"([^"]+)","parentId":(?:"([^"]+)"|null)')
    parent_of: dict[bytes, bytes | None] = {}
    with file.open("rb") as fh:
        for line in fh:
            m = head.match(line)
            if m:
                parent_of[m.group(1)] = m.group(2)

    def up(parent: bytes | None) -> bytes | None:
        while parent is not None and parent in parent_of:
            parent = parent_of[parent]
        return parent

    link = re.compile(rb'"parentId":"([^"]+)"')
    tmp = target.with_suffix(".tmp")
    with file.open("rb") as fh, tmp.open("wb") as out:
        for line in fh:
            if head.match(line):
                continue
            m = link.search(line, 0, 200)
            if m and m.group(1) in parent_of:
                new = up(m.group(1))
                value = b'"parentId":"' + new + b'"' if new is not None else b'"parentId":null'
                line = line[: m.start()] + value + line[m.end() :]
            out.write(line)
    tmp.replace(target)
    return target


_SERVER = """
import importlib.util, sys, time
spec = importlib.util.spec_from_file_location("fake_anthropic", sys.argv[1])
fa = importlib.util.module_from_spec(spec); sys.modules[spec.name] = fa; spec.loader.exec_module(fa)
server = fa.FakeAnthropicServer().start()
for _ in range(8):
    server.enqueue(fa.text("## Goal\\nKeep going.\\n\\n## Progress\\n- done", chunk=64))
print(server.base_url, flush=True)
sys.stdin.read()
print(sum(len(r.raw_body) for r in server.message_requests()), flush=True)
"""


def _child_compact(params: dict[str, Any]) -> dict[str, Any]:
    """Open the session as ``arbor`` does and compact it once; peak RSS at each step. ``root``: the
    checkout whose ``desktop_app`` is measured (this file's helpers are this checkout's)."""
    import asyncio

    sys.path.insert(0, params["root"])

    from desktop_app.compaction.session_ops import compact_session
    from desktop_app.llm.anthropic import AnthropicProvider
    from desktop_app.llm.catalog import DEFAULT_MODEL_ID
    from desktop_app.session import SessionManager

    result: dict[str, Any] = {}

    async def main() -> None:
        provider = AnthropicProvider(api_key="sk-ant-bench-dummy", base_url=params["base_url"],
                                     model_id=DEFAULT_MODEL_ID)
        await provider.prepare()
        result["rss_before_open"] = bench_gui._proc_status().get("VmHWM")
        started = time.perf_counter()
        manager = SessionManager.open(bench_gui._copy_session(params["file"], params["tmp"]), fsync=False)
        result["open_ms"] = (time.perf_counter() - started) * 1000
        result["rss_after_open"] = bench_gui._proc_status().get("VmHWM")
        started = time.perf_counter()
        outcome = await compact_session(manager, provider)
        result["compact_ms"] = (time.perf_counter() - started) * 1000
        result["summary_chars"] = len(outcome.result.summary)
        result["peak_rss"] = bench_gui._proc_status().get("VmHWM")
        await provider.aclose()

    asyncio.run(main())
    return result


def _spawn_compact(params: dict[str, Any]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="arbor-bench-compact-") as tmp:
        out = Path(tmp) / "result.json"
        env = bench_gui._child_env(Path(tmp) / "home", anthropic=False)
        proc = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--child", json.dumps({**params, "tmp": tmp}), str(out)],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=bench_gui.CHILD_TIMEOUT,
        )
        if proc.returncode != 0 or not out.exists():
            raise RuntimeError(f"compact child exited with {proc.returncode}:\n{proc.stderr[-2000:]}")
        result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
        return result


def compaction_memory(file: Path, root: Path = ROOT) -> dict[str, Any]:
    server = subprocess.Popen(
        [sys.executable, "-c", _SERVER, str(ROOT / "tests" / "fakes" / "anthropic_server.py")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert server.stdout is not None and server.stdin is not None
        base_url = server.stdout.readline().strip()
        result = _spawn_compact({"file": str(file), "base_url": base_url, "root": str(root)})
        server.stdin.close()
        result["request_bytes"] = int(server.stdout.readline().strip() or 0)
    finally:
        server.wait(timeout=30)
    return result


def compaction_rounds(file: Path, checkouts: dict[str, Path], runs: int) -> dict[str, dict[str, Any]]:
    """:func:`compaction_memory` ``runs`` times per checkout, interleaved round by round; per checkout
    the medians of every number, with the peaks of each round under ``peaks``."""
    samples: dict[str, list[dict[str, Any]]] = {name: [] for name in checkouts}
    for _ in range(runs):
        for name, root in checkouts.items():
            samples[name].append(compaction_memory(file, root))
    out: dict[str, dict[str, Any]] = {}
    for name, rows in samples.items():
        keys = [k for k in rows[0] if all(isinstance(r.get(k), (int, float)) for r in rows)]
        out[name] = {k: statistics.median(r[k] for r in rows) for k in keys}
        out[name]["peaks"] = [r.get("peak_rss") for r in rows]
    return out


# ====================================================================================== report


def _ms(value: Any) -> str:
    return "–" if value is None else f"{value:,.0f} ms"


def _mb(value: Any) -> str:
    return "–" if value is None else f"{value / 2**20:,.0f} MiB"


def markdown(rows: list[dict[str, Any]]) -> str:
    out: list[str] = []
    for row in rows:
        med = row["first"]["medians"]
        pi = med.get("pi", {}).get("open")
        names = [n for n in med if n != "pi"]
        out.append(f"**{row['entries']:,} entries ({row['bytes'] / 1e6:,.0f} MB), medians of {row['runs']}, "
                   f"interleaved with pi 0.73.1**\n")
        out.append("| measure | " + " | ".join(names) + " | pi |")
        out.append("|---|" + "---:|" * (len(names) + 1))

        def line(label: str, key: str, fmt: Any, pi_value: Any = None, names: list[str] = names,
                 med: dict[str, Any] = med) -> None:
            cells = [fmt(med[n].get(key)) for n in names]
            out.append(f"| {label} | " + " | ".join(cells) + f" | {fmt(pi_value) if pi_value is not None else ''} |")

        line("spawn → first picture (pi: spawn → opened, exited)", "first_picture", _ms, pi)
        ratios = [f"**{med[n]['first_picture'] / pi:.2f}×**" if pi and med[n].get("first_picture") else "–"
                  for n in names]
        out.append(f"| first picture / pi (target ≤ {TARGET_RATIO}×) | " + " | ".join(ratios) + " | |")
        line("imports (interpreter → window and graph imported)", "imports", _ms)
        line("the session's open before the window (engine)", "engine_open", _ms)
        line("spawn → whole file parsed and installed", "loaded", _ms)
        line("spawn → whole graph painted", "complete", _ms)
        line("longest event-loop gap, show → whole graph", "stall", _ms)
        line("peak RSS of the open (MiB)", "peak_rss", _mb, med.get("pi", {}).get("peak_rss"))
        out.append("")
        out.append("| compaction at this size (fresh process, fake Anthropic server) | open | peak RSS after open | "
                   "peak RSS after compaction (target ≤ 477 MiB) | request body | compaction |")
        out.append("|---|---:|---:|---:|---:|---:|")
        for label, c in row["compaction"].items():
            if "error" in c:
                out.append(f"| {label} | error: {c['error'][:120]} | | | | |")
                continue
            out.append(f"| {label} | {_ms(c.get('open_ms'))} | {_mb(c.get('rss_after_open'))} | "
                       f"**{_mb(c.get('peak_rss'))}** | {c.get('request_bytes', 0) / 1e6:,.1f} MB | "
                       f"{_ms(c.get('compact_ms'))} |")
        out.append("")
    return "\n".join(out)


def measure(sizes: list[int], runs: int, before: Path | None) -> list[dict[str, Any]]:
    from benchmarks.generate import cached_session, describe

    checkouts = {"this checkout": ROOT}
    if before is not None:
        checkouts = {"before": before.resolve(), **checkouts}
    rows: list[dict[str, Any]] = []
    for n in sizes:
        file, stats = cached_session(n)
        print(f"session {n:,}: {describe(stats)}", file=sys.stderr, flush=True)
        first = first_picture(file, runs, checkouts)
        compaction: dict[str, Any] = {}
        for label, path in (("generated session", file), ("its compactions taken out (worst case)",
                                                           _no_compaction_copy(file))):
            print(f"  compaction: {label} ...", file=sys.stderr, flush=True)
            try:
                for name, result in compaction_rounds(path, checkouts, runs).items():
                    compaction[f"{label}, {name}"] = result
            except Exception as exc:  # noqa: BLE001 - reported in the table
                compaction[label] = {"error": repr(exc)[-500:]}
        rows.append({"entries": n, "bytes": stats.bytes, "runs": runs, "first": first, "compaction": compaction,
                     "calibration_ms": bench_gui._calibrate()})
    return rows


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        Path(argv[2]).write_text(json.dumps(_child_compact(json.loads(argv[1]))), encoding="utf-8")
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entries", type=int, nargs="+", default=[100_000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--before", type=Path, help="another checkout to run side by side (e.g. a worktree)")
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("--only-compaction", action="store_true", help="skip the first-picture runs")
    args = parser.parse_args(argv)
    if args.only_compaction:
        from benchmarks.generate import cached_session

        checkouts = {"before": args.before.resolve()} if args.before else {}
        checkouts["this checkout"] = ROOT
        print(f"| session ({args.runs} rounds, medians) | checkout | peak RSS after open | peak RSS after "
              "compaction | each round | request body | compaction |\n|---|---|---:|---:|---|---:|---:|")
        for n in args.entries:
            file, _ = cached_session(n)
            for path in (file, _no_compaction_copy(file)):
                for name, c in compaction_rounds(path, checkouts, args.runs).items():
                    peaks = ", ".join(_mb(p) for p in c["peaks"])
                    print(f"| {path.name} | {name} | {_mb(c.get('rss_after_open'))} | **{_mb(c.get('peak_rss'))}** "
                          f"| {peaks} | {c.get('request_bytes', 0) / 1e6:,.1f} MB | {_ms(c.get('compact_ms'))} |",
                          flush=True)
        return 0
    rows = measure(args.entries, args.runs, args.before)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1), encoding="utf-8")
    print(markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
