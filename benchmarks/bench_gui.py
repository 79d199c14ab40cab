"""GUI benchmark (issue 5, DESIGN.md §10): open to an interactive graph, event-loop stalls, branch switch, memory.

Everything runs on the real main window (``MainWindow``, offscreen Qt, qasync) with a generated
10,000-entry session (``benchmarks/generate.py``; ``--quick``: 2,000 entries). Each measurement
runs in a fresh child process (this file with ``--child KIND``), so no run is helped by another
one's imports, caches or heap. Every child gets its own ``ARBOR_HOME`` (empty settings, UI state and
sessions), so the real home directory is never read or written, and no keyring is consulted.

1. **Open → interactive graph** (5 runs, each a fresh process): the child is ``arbor FILE`` itself —
   ``desktop_app.cli.main([FILE])`` → ``run_gui`` — with two hooks only: ``initial_session`` and
   ``MainWindow`` are wrapped to take timestamps, and ``GraphView.viewportEvent`` times paint events.
   Measured from just before the parent spawns the process (interpreter start, imports included)
   and from just before ``SessionManager.open`` until the end of the graph viewport's first paint
   with a layout on it (tidy or dot) after ``window.show()``; also until Graphviz ``dot``'s
   positions are on screen (``layout_applied("dot")``) when the view graph is under the dot limit.
   Two variants: the offline model (no key) and the Anthropic provider (a dummy key in the
   environment; nothing is sent: the SDK import and warm-up are what differ).
2. **Stall while streaming and compacting** (1 run, after the window has settled): a 5 ms
   ``QTimer`` heartbeat (precise timer) runs while the window streams a reply of 2,000 small
   deltas (4 characters each, markdown prose, lists and code) from the fake Anthropic server
   (``tests/fakes/anthropic_server.py``) through ``AnthropicProvider`` and the real SDK, sent the way
   the composer sends it, and while a second ``AgentSession`` compacts a copy of the same session
   (a second session, as when another window compacts) at the same time (its summary request streams
   from the fake server too). One ``AgentSession`` never streams and compacts at once: it is busy with
   one or the other; two sessions on one ``SessionManager`` would fight over its leaf. Stall = longest gap between two beats − 5 ms. The streaming agent has auto-compaction
   off, so the only compaction is the concurrent one. The measured span ends when both are done and
   the layout the appends caused is on screen. The same stream without the compaction is measured
   too, to tell the two apart.
3. **Branch switch** (5 switches between two distant leaves: the file's leaf and the leaf whose
   branch leaves the active path closest to the root): ``await agent.navigate_tree(leaf)`` without
   summary, with the window bound, until it returns (the chat re-bound through ``set_context`` and
   the graph updated, both synchronously from the session's ``leaf_moved`` event), then one full
   ``window.repaint()``. Also measured through the window's own path (``node_activated`` → the
   window's ``_navigate`` task), which is what a double-click does.
4. **Memory**: peak RSS (``VmHWM``) of the open child once the dot layout is on screen.

``.venv/bin/python benchmarks/bench_gui.py [--quick] [--runs N] [--tokens N] [--profile KIND] [--json FILE]``

``.venv/bin/python benchmarks/bench_gui.py --markdown [OTHER_CHECKOUT ...]``: hostile markdown (issue 13
item 4), rendered and laid out as the chat does, for this checkout and the others given (e.g. an older
commit's worktree), each case in a fresh process.

``.venv/bin/python benchmarks/bench_gui.py --entries 10000 100000 [--runs 3] [--tokens 2000]``: issue 10
item 8 at each size in one run, side by side with pi 0.73.1 when node and pi are installed
(``PI_DIR``, default ``/tmp/pi0731``): ``arbor FILE`` to its first painted picture (the leaf's
neighbourhood for a big session) and to the whole graph painted, the longest event-loop stall meanwhile,
peak RSS; node opening the file with pi (``pi_side_by_side.mjs --rss``), interleaved run by run; then
one streaming + compacting child and one branch-switch child. Medians, ratios, targets met or not.

``.venv/bin/python benchmarks/bench_gui.py --freeze 20000 100000 [--runs 3] [--before CHECKOUT]``: issue 28
item 1. A 5 ms heartbeat from the end of the first picture's paint until the end of the whole
graph's (the ``open`` child): the longest gap between two beats, the window's ends counting as
beats. ``--before`` runs another checkout's app (say ``git archive`` of the commit before a change,
unpacked) in this harness too, interleaved run by run. Medians. ``--profile open --size N`` shows
the traced calls inside this window's longest gaps.

``--profile open|stream|switch [--size N]`` runs that child once under cProfile and once with a span tracer
(``TRACED``: the app's event handlers, timed call by call) and prints where the time goes; for
``stream``, the calls that ran inside the longest heartbeat gaps. ``--anthropic`` profiles the
Anthropic-provider open.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TITLE = (
    "GUI: open to an interactive graph, event-loop stall while streaming + compacting, branch switch, memory"
)

FULL_ENTRIES = 10_000
QUICK_ENTRIES = 2_000
FULL_TOKENS = 2_000
QUICK_TOKENS = 500
HEARTBEAT_MS = 5
DELTA_CHARS = 4  # one "token" per delta
DELTA_DELAY = 0.003  # seconds the fake server waits before each delta
CHILD_TIMEOUT = 300.0

TARGET_OPEN_MS = 2000.0
TARGET_STALL_MS = 50.0
TARGET_SWITCH_MS = 150.0
TARGET28_FREEZE_MS = 50.0  #: issue 28 item 1: the longest heartbeat gap after the first picture


# ====================================================================================== helpers


def _proc_status() -> dict[str, int]:
    """``VmHWM`` and ``VmRSS`` of this process in bytes (Linux; empty elsewhere)."""
    out: dict[str, int] = {}
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmHWM", "VmRSS"):
                out[key] = int(value.split()[0]) * 1024
    except OSError:
        pass
    return out


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def _gap_stats(beats: list[float], interval_ms: float = HEARTBEAT_MS) -> dict[str, Any]:
    gaps = [(b - a) * 1000 for a, b in zip(beats, beats[1:], strict=False)]
    if not gaps:
        return {
            "beats": len(beats),
            "max_gap_ms": None,
            "stall_ms": None,
            "median_gap_ms": None,
            "p99_gap_ms": None,
        }
    return {
        "beats": len(beats),
        "max_gap_ms": max(gaps),
        "stall_ms": max(gaps) - interval_ms,
        "median_gap_ms": statistics.median(gaps),
        "p99_gap_ms": _pct(gaps, 0.99),
        "gaps_over_50ms": sum(1 for g in gaps if g - interval_ms > 50),
        "gaps_over_20ms": sum(1 for g in gaps if g - interval_ms > 20),
    }


def _freeze_stats(beats: list[float], start: float, end: float) -> dict[str, Any]:
    """The heartbeat from the first picture's paint (``start``) until the whole graph's (``end``):
    the longest gap between two beats (the window's ends count as beats), the median gap, how
    many beats, and the five longest gaps (ms from ``start``, ms) (issue 28 item 1)."""
    inside = [start, *(b for b in beats if start < b < end), end]
    gaps = [(b - a) * 1000 for a, b in zip(inside, inside[1:], strict=False)]
    return {
        "span_ms": (end - start) * 1000,
        "beats": len(inside) - 2,
        "max_gap_ms": max(gaps),
        "median_gap_ms": statistics.median(gaps),
        "worst_gaps": _worst_gaps(inside, start),
    }


#: How long after the whole file's install starts its turns count as the install's (issue 28: the
#: graph's, the chat's and the panels' steps, 1 ms apart, and the paints each causes).
INSTALL_WINDOW_MS = 150.0


def _phase_gaps(beats: list[float], start: float, end: float, install: float | None) -> dict[str, float | None]:
    """The longest heartbeat gap of each part of the window from ``start`` (the first picture's
    paint) to ``end`` (the whole graph's): ``first`` (the gap right after the first picture: the
    rest of the window's first frame), ``install`` (gaps overlapping the :data:`INSTALL_WINDOW_MS`
    after the whole file's install began; ``None`` without one) and ``rest``; ms."""
    inside = [start, *(b for b in beats if start < b < end), end]
    pairs = list(zip(inside, inside[1:], strict=False))
    until = install + INSTALL_WINDOW_MS / 1000 if install is not None else None
    at_install = [(b - a) * 1000 for a, b in pairs if until is not None and install is not None and b > install and a < until]
    rest = [(b - a) * 1000 for a, b in pairs[1:] if until is None or install is None or not (b > install and a < until)]
    return {
        "first": (pairs[0][1] - pairs[0][0]) * 1000 if pairs else None,
        "install": max(at_install) if at_install else None,
        "rest": max(rest) if rest else None,
    }


def _worst_gaps(beats: list[float], t0: float, n: int = 5) -> list[tuple[float, float]]:
    """The ``n`` longest gaps as (start offset from ``t0`` in ms, gap in ms)."""
    gaps = [((a - t0) * 1000, (b - a) * 1000) for a, b in zip(beats, beats[1:], strict=False)]
    return sorted(gaps, key=lambda g: -g[1])[:n]


def _load_fake_server() -> Any:
    """``tests/fakes/anthropic_server.py`` as a module, without the package (which imports pytest)."""
    import importlib.util

    path = ROOT / "tests" / "fakes" / "anthropic_server.py"
    spec = importlib.util.spec_from_file_location("arbor_bench_fake_anthropic", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _stream_text(tokens: int) -> str:
    """``tokens`` × 4 characters of markdown a model might write: prose, a list, code, a table."""
    words = (
        "the session tree keeps every branch so you can come back to an earlier turn and try again "
        "compaction replaces old history with a summary while the kept tail stays verbatim in context "
        "each entry has an id and a parent id and the leaf decides what the model sees next"
    ).split()
    parts: list[str] = []
    i = 0
    size = 0
    target = tokens * DELTA_CHARS
    while size < target:
        block = i % 4
        if block == 0:
            text = " ".join(words[(i * 7 + k) % len(words)] for k in range(60)).capitalize() + ".\n\n"
        elif block == 1:
            text = (
                "".join(
                    f"- **{words[(i + k) % len(words)]}**: {' '.join(words[k : k + 8])}\n" for k in range(5)
                )
                + "\n"
            )
        elif block == 2:
            text = (
                "```python\n"
                f"def step_{i}(manager, leaf_id):\n"
                "    path = manager.get_branch(leaf_id)\n"
                "    for entry in path:\n"
                "        if entry.get('type') == 'compaction':\n"
                "            return entry['firstKeptEntryId']\n"
                "    return None\n"
                "```\n\n"
            )
        else:
            text = (
                "| entry | kind | tokens |\n|---|---|---:|\n"
                + "".join(
                    f"| `{k:08x}` | {words[(i + k) % len(words)]} | {k * 137 % 5000} |\n" for k in range(4)
                )
                + "\n"
            )
        parts.append(text)
        size += len(text)
        i += 1
    return "".join(parts)[:target]


PYCACHE = ROOT / "benchmarks" / ".data" / "pycache"


def _child_env(home: Path, anthropic: bool) -> dict[str, str]:
    env = dict(os.environ)
    env["QT_QPA_PLATFORM"] = "offscreen"
    # An installed app has its bytecode compiled; a checkout run with PYTHONDONTWRITEBYTECODE=1 (as
    # this machine sets) recompiles desktop_app at every start (~0.1 s). Children keep their bytecode
    # in a git-ignored cache instead, filled by an untimed first start.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    env["ARBOR_HOME"] = str(home)
    env.pop("ANTHROPIC_API_KEY", None)
    env.pop("ANTHROPIC_BASE_URL", None)
    settings: dict[str, Any] = {}
    if anthropic:
        # A dummy key makes make_provider() pick AnthropicProvider (the environment is read before any
        # keyring); the base URL is a closed local port: nothing is ever sent while opening.
        env["ANTHROPIC_API_KEY"] = "sk-ant-bench-dummy-not-a-key"
        settings["baseUrl"] = "http://127.0.0.1:9"
    else:
        settings["provider"] = "offline"
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    return env


def _spawn(kind: str, params: dict[str, Any], *, anthropic: bool = False) -> dict[str, Any]:
    """Run ``--child kind`` in a fresh interpreter; its JSON result."""
    with tempfile.TemporaryDirectory(prefix="arbor-bench-gui-") as tmp:
        out = Path(tmp) / "result.json"
        env = _child_env(Path(tmp) / "home", anthropic)
        params = {**params, "tmp": tmp}
        spawned = time.time()
        proc = subprocess.run(
            [
                sys.executable,
                str(Path(__file__).resolve()),
                "--child",
                kind,
                json.dumps(params),
                str(out),
                repr(spawned),
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=CHILD_TIMEOUT,
        )
        if proc.returncode != 0 or not out.exists():
            raise RuntimeError(f"child {kind} exited with {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
        result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
        if proc.stderr.strip():
            result["stderr"] = proc.stderr.strip()[-2000:]
        return result


def _copy_session(file: str, tmp: str) -> str:
    target = Path(tmp) / Path(file).name
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(file, target)
    target.chmod(0o600)
    return str(target)


class _Sampler:
    """A stack sampler for the main thread (stdlib only): which code ran during the longest gaps.

    A daemon thread takes ``sys._current_frames()`` of the main thread every ``interval`` seconds; a
    frame in C++ (Qt painting, say) shows as the Python frame that called into it.
    """

    def __init__(self, params: dict[str, Any], interval: float = 0.002) -> None:
        import threading

        self.enabled = bool(params.get("sample"))
        self.interval = interval
        self.samples: list[tuple[float, tuple[str, ...]]] = []
        self._stop = threading.Event()
        self._main = threading.main_thread().ident
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        if self.enabled:
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            frame = sys._current_frames().get(self._main)  # noqa: SLF001 - the documented way
            stack: list[str] = []
            while frame is not None and len(stack) < 40:
                code = frame.f_code
                stack.append(f"{Path(code.co_filename).name}:{code.co_name}:{frame.f_lineno}")
                frame = frame.f_back
            self.samples.append((time.perf_counter(), tuple(stack)))

    def attribute(self, start: float, end: float, top: int = 6) -> list[tuple[int, str]]:
        """The most common stacks (innermost project frames first) sampled in ``[start, end]``."""
        from collections import Counter

        counts: Counter[str] = Counter()
        for t, stack in self.samples:
            if start <= t <= end:
                frames = [
                    f for f in stack if not f.startswith(("bench_gui.py", "events.py", "base_events.py"))
                ]
                counts[" < ".join(frames[:8])] += 1
        return counts.most_common(top)


#: What ``--profile`` times span by span (module, class or "", function); missing names are skipped,
#: so the list survives refactoring.
TRACED: list[tuple[str, str, str]] = [
    ("desktop_app.session.manager", "SessionManager", "append_message"),
    ("desktop_app.session.manager", "SessionManager", "_emit"),
    ("desktop_app.session.manager", "SessionManager", "build_session_context"),
    ("desktop_app.session.manager", "SessionManager", "branch"),
    ("desktop_app.session.store", "SessionStore", "append"),
    ("desktop_app.agent.session", "AgentSession", "_request"),
    ("desktop_app.agent.session", "AgentSession", "context_usage"),
    ("desktop_app.agent.session", "AgentSession", "_emit"),
    ("desktop_app.llm.anthropic", "AnthropicProvider", "_client"),
    ("anthropic._base_client", "BaseClient", "_build_request"),
    ("desktop_app.ui.main_window", "MainWindow", "_refresh_chat"),
    ("desktop_app.present.window_state", "UiState", "_write"),
    ("desktop_app.ui.chat.panel", "ChatPanel", "set_context"),
    ("desktop_app.ui.chat.panel", "ChatPanel", "begin_stream"),
    ("desktop_app.ui.chat.panel", "ChatPanel", "end_stream"),
    ("desktop_app.ui.chat.panel", "ChatView", "paintEvent"),
    ("desktop_app.ui.graph.view", "GraphView", "_on_session_event"),
    ("desktop_app.ui.graph.view", "GraphView", "_apply_append"),
    ("desktop_app.ui.graph.view", "GraphView", "_after_rebuild"),
    ("desktop_app.ui.graph.view", "GraphView", "_relayout"),
    ("desktop_app.ui.graph.view", "GraphView", "_on_dot_done"),
    ("desktop_app.ui.graph.view", "GraphView", "_refresh_minimap"),
    ("desktop_app.ui.graph.minimap", "MinimapBinding", "redraw_now"),
    ("desktop_app.ui.graph.view", "GraphView", "viewportEvent"),
    ("desktop_app.present.graph_model", "ViewGraphModel", "add_entry"),
    ("desktop_app.present.graph_model", "ViewGraphModel", "set_leaf"),
    ("desktop_app.present.graph_model", "ViewGraphModel", "rebuild"),
    ("desktop_app.present.layout", "Layouter", "tidy"),
    ("desktop_app.present.layout", "Layouter", "start_dot"),
    ("desktop_app.ui.graph.scene", "GraphScene", "show_graph"),
    ("desktop_app.ui.graph.scene", "GraphScene", "move_to"),
    ("desktop_app.ui.graph.outline_panel", "OutlinePanel", "refresh"),
    ("desktop_app.ui.graph.minimap", "Minimap", "set_content"),
    ("desktop_app.ui.graph.view", "GraphView", "node_marks"),
    ("desktop_app.ui.graph.view", "GraphView", "_layout_labels"),
    ("desktop_app.ui.steering", "Steering", "_show_siblings"),
    ("desktop_app.present.siblings", "", "sibling_switches"),
    ("desktop_app.ui.graph.scene", "GraphScene", "_empty_trash"),
    ("desktop_app.ui.graph.minimap", "MinimapBinding", "_step"),
    ("desktop_app.ui.graph.view", "GraphView", "_picture_painted"),
    ("desktop_app.ui.graph.view", "GraphView", "_start_full_build"),
    ("desktop_app.ui.main_window", "MainWindow", "_update_meter"),
    ("desktop_app.ui.chat.sliced", "SliceScheduler", "_tick"),
    ("desktop_app.ui.graph.outline_panel", "OutlinePanel", "paintEvent"),
    # the whole graph's build and swap after the first picture (issue 28 item 1)
    ("desktop_app.ui.graph.whole_graph", "WholeGraphBuild", "_start"),
    ("desktop_app.ui.graph.whole_graph", "WholeGraphBuild", "_poll"),
    ("desktop_app.ui.graph.whole_graph", "WholeGraphBuild", "_swap_step"),
    ("desktop_app.ui.graph.updates", "GraphUpdates", "swap_in"),
    ("desktop_app.ui.graph.selecting", "CanvasSelection", "follow"),
    ("desktop_app.ui.graph.selecting", "CanvasSelection", "restore"),
    ("desktop_app.ui.graph.canvas_find", "CanvasFind", "rematch"),
    ("desktop_app.ui.graph.viewport", "ViewportController", "restore_anchor"),
    ("desktop_app.ui.graph.minimap", "MinimapBinding", "redraw"),
    ("desktop_app.ui.graph.labels", "LabelPainter", "layout"),
    ("desktop_app.ui.graph.labels", "LabelPainter", "set_graph"),
    ("desktop_app.ui.graph.scene", "GraphScene", "_rebuild_links"),
    ("desktop_app.ui.graph.scene", "GraphScene", "_make_rows"),
    ("desktop_app.ui.graph.scene", "GraphScene", "_refresh_overview"),
    ("desktop_app.ui.graph.scene", "GraphScene", "show_audit"),
    ("desktop_app.ui.graph.scene", "GraphScene", "tighten_rect"),
    ("desktop_app.ui.graph.items", "EdgeLayer", "add_many"),
    ("desktop_app.ui.graph.view", "GraphView", "drawForeground"),
    ("desktop_app.ui.graph.view", "GraphView", "paintEvent"),
    ("desktop_app.ui.graph.follow", "LeafFollower", "follow"),
    # the whole file's install after a deferred open (issue 28: one of the two longest turns left)
    ("desktop_app.ui.main_window", "MainWindow", "install_full_session"),
    ("desktop_app.ui.main_window", "MainWindow", "_bind_session"),
    ("desktop_app.session.manager", "SessionManager", "finish_loading"),
    ("desktop_app.ui.graph.updates", "GraphUpdates", "show"),
    ("desktop_app.ui.graph.whole_graph", "WholeGraphBuild", "show_neighbourhood"),
    ("desktop_app.present.chat_feed", "ChatFeed", "bind"),
    ("desktop_app.ui.steering", "Steering", "session_bound"),
    ("desktop_app.ui.shell", "WindowShell", "session_bound"),
    ("desktop_app.ui.graph.minimap", "Minimap", "paintEvent"),
    ("gc", "", "freeze"),
]


def _event_kind(event: Any) -> str:
    """An agent event's name in snake case: ``text_delta``, ``turn_started``, ``compaction_failed``.

    Typed events (``TurnStarted``, ``StreamUpdated(TextDelta)``) and the older string-kind events
    both map to the same names, so the same measurement reads either.
    """
    kind = getattr(event, "kind", None)
    if isinstance(kind, str):
        return kind
    if type(event).__name__ == "StreamUpdated":
        event = event.event
    name = type(event).__name__
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name).lstrip("_")


class _Tracer:
    """Wraps :data:`TRACED` to record (name, start, end) spans, when the parent asked (``params["trace"]``)."""

    def __init__(self, params: dict[str, Any]) -> None:
        self.enabled = bool(params.get("trace"))
        self.spans: list[tuple[str, float, float]] = []
        if self.enabled:
            self._install()

    def _install(self) -> None:
        import functools
        import importlib

        spans = self.spans
        for module_name, class_name, name in TRACED:
            try:
                owner: Any = importlib.import_module(module_name)
                if class_name:
                    owner = getattr(owner, class_name)
                original = getattr(owner, name)
            except (ImportError, AttributeError):
                continue
            label = f"{class_name or module_name}.{name}"

            def wrapper(*args: Any, __original: Any = original, __label: str = label, **kwargs: Any) -> Any:
                start = time.perf_counter()
                try:
                    return __original(*args, **kwargs)
                finally:
                    end = time.perf_counter()
                    if __label == "SessionManager._emit" and args[1:]:
                        kind = _event_kind(args[1])
                        spans.append((f"session event {kind}", start, end))
                    else:
                        spans.append((__label, start, end))

            functools.update_wrapper(wrapper, original)
            setattr(owner, name, wrapper)

    def within(self, start: float, end: float, min_ms: float = 0.5) -> list[tuple[float, float, str]]:
        """Spans that began in ``[start, end]`` and lasted ``min_ms`` or more: (offset ms, duration ms, name)."""
        return [
            ((t - start) * 1000, (e - t) * 1000, name)
            for name, t, e in sorted(self.spans, key=lambda s: s[1])
            if start <= t <= end and (e - t) * 1000 >= min_ms
        ]

    def summary(self) -> dict[str, tuple[int, float, float]]:
        """Per name: (calls, median ms, max ms)."""
        by: dict[str, list[float]] = {}
        for name, t, e in self.spans:
            by.setdefault(name, []).append((e - t) * 1000)
        return {
            k: (len(v), statistics.median(v), max(v))
            for k, v in sorted(by.items(), key=lambda kv: -sum(kv[1]))
        }


class _Profile:
    """cProfile around the measured region when the parent asked for it (``params["profile"]``)."""

    def __init__(self, params: dict[str, Any]) -> None:
        self.path = params.get("profile")
        self.profiler: Any = None

    def start(self) -> None:
        if self.path:
            import cProfile

            self.profiler = cProfile.Profile()
            self.profiler.enable()

    def stop(self) -> None:
        if self.profiler is not None:
            self.profiler.disable()
            self.profiler.dump_stats(self.path)
            self.profiler = None


# ====================================================================================== child: open


def _child_open(params: dict[str, Any], started_wall: float, spawned_wall: float) -> dict[str, Any]:
    """``arbor FILE`` with timestamps; returns the timeline in ms from the spawn."""
    started = time.perf_counter()
    if params.get("code_root"):  # another checkout's app (e.g. the code before a change), this harness
        sys.path.insert(0, params["code_root"])

    def now() -> float:  # ms since the parent spawned this process
        return (time.perf_counter() - started) * 1000 + (started_wall - spawned_wall) * 1000

    profile = _Profile(params)
    profile.start()
    marks: dict[str, Any] = {"interpreter_ready": now()}
    tracer = _Tracer(params)
    sampler = _Sampler(params)  # with "sample": what the UI thread ran between show() and the first paint
    raw: dict[str, float] = {}
    from desktop_app import cli  # what the `arbor` script imports first

    marks["cli_imported"] = now()
    from PySide6.QtCore import QEvent, Qt, QTimer

    import desktop_app.ui.app as app_mod
    import desktop_app.ui.main_window as main_window_mod
    from desktop_app.ui.graph.view import GraphView

    marks["gui_imported"] = now()
    paints: list[dict[str, Any]] = []
    state: dict[str, Any] = {"window": None, "beats": [], "done": False}

    original_initial_session = app_mod.initial_session

    def timed_initial_session(path: Any, settings: Any, **kwargs: Any) -> Any:
        marks["before_open"] = now()
        manager = original_initial_session(path, settings, **kwargs)
        marks["after_open"] = now()
        return manager

    app_mod.initial_session = timed_initial_session
    original_make_provider = app_mod.make_provider

    def timed_make_provider(*args: Any, **kwargs: Any) -> Any:
        marks["before_provider"] = now()
        provider = original_make_provider(*args, **kwargs)
        marks["after_provider"] = now()
        return provider

    app_mod.make_provider = timed_make_provider

    original_viewport_event = GraphView.viewportEvent

    def timed_viewport_event(self: Any, event: Any) -> bool:
        if event.type() != QEvent.Type.Paint:
            return bool(original_viewport_event(self, event))
        begin = now()
        result = bool(original_viewport_event(self, event))
        partial = bool(getattr(self, "partial", False))
        paints.append(
            {
                "start": begin,
                "end": now(),
                "layout": self.layout_kind,
                "items": len(self.graph_scene().nodes),
                "partial": partial,
            }
        )
        if "first_paint_end" not in marks and "shown" in marks and self.layout_kind in ("tidy", "dot"):
            raw["first_paint_start"] = time.perf_counter()
            marks["first_paint_start"] = begin
            marks["first_paint_end"] = paints[-1]["end"]
            marks["first_paint_layout"] = self.layout_kind
            marks["first_paint_partial"] = partial  # the leaf's neighbourhood (a big session)
            marks["first_paint_items"] = paints[-1]["items"]
            raw["first_paint_end"] = time.perf_counter()
            QTimer.singleShot(0, lambda: marks.setdefault("first_turn_after_paint", now()))
        loading = state["window"] is not None and state["window"].agent.session.loading  # a deferred open
        if "loaded" not in marks and "first_paint_end" in marks and not loading:
            marks["loaded"] = now()  # the whole file parsed and installed
        if "complete_paint_end" not in marks and "first_paint_end" in marks and not partial and not loading:
            marks["complete_paint_end"] = paints[-1]["end"]  # the whole graph painted
            raw["complete_paint_end"] = time.perf_counter()
            _maybe_finish()
        return result

    GraphView.viewportEvent = timed_viewport_event  # type: ignore[method-assign]

    def _maybe_finish() -> None:
        window = state["window"]
        if window is None or state["done"] or "complete_paint_end" not in marks:
            return
        graph = window.graph
        wants_dot = graph._layouter.wants_dot(graph.graph()) and graph._use_dot
        marks["view_nodes"] = len(graph.graph())  # a ViewGraph now, a networkx graph before: both have len
        marks["wants_dot"] = bool(wants_dot)
        if wants_dot and "dot" not in marks and now() - marks["first_paint_end"] < 60_000:
            return
        state["done"] = True
        QTimer.singleShot(500, _finish)  # let the dot positions paint and the minimap refresh

    def _finish() -> None:
        marks["end"] = now()
        profile.stop()
        status = _proc_status()
        marks["peak_rss"] = status.get("VmHWM")
        marks["rss"] = status.get("VmRSS")
        marks["beats"] = _gap_stats(state["beats"])
        if "first_paint_end" in raw and "complete_paint_end" in raw:
            marks["freeze"] = _freeze_stats(state["beats"], raw["first_paint_end"], raw["complete_paint_end"])
            marks["freeze"]["phase_gaps"] = _phase_gaps(
                state["beats"], raw["first_paint_end"], raw["complete_paint_end"], raw.get("install")
            )
            marks["freeze"]["worst"] = [
                {"at_ms": at, "gap_ms": gap, "stacks": sampler.attribute(raw["first_paint_end"] + at / 1000,
                 raw["first_paint_end"] + (at + gap) / 1000, top=8) if sampler.enabled else [],
                 "spans": tracer.within(raw["first_paint_end"] + at / 1000,
                 raw["first_paint_end"] + (at + gap) / 1000) if tracer.enabled else []}
                for at, gap in marks["freeze"]["worst_gaps"]
            ]
        state["heartbeat"].stop()
        state["window"].close()

    class TimedMainWindow(main_window_mod.MainWindow):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            marks["window_init"] = now()
            super().__init__(*args, **kwargs)
            marks["window_built"] = now()
            marks["layout_at_build"] = self.graph.layout_kind
            state["window"] = self
            self.graph.layout_applied.connect(self._bench_layout)
            heartbeat = QTimer(self)
            heartbeat.setTimerType(Qt.TimerType.PreciseTimer)
            heartbeat.setInterval(HEARTBEAT_MS)
            heartbeat.timeout.connect(lambda: state["beats"].append(time.perf_counter()))
            state["heartbeat"] = heartbeat

        def install_full_session(self) -> None:
            raw.setdefault("install", time.perf_counter())  # the whole file parsed: its install begins
            super().install_full_session()

        def _bench_layout(self, kind: str) -> None:
            marks.setdefault(kind, now())
            if kind == "dot":
                QTimer.singleShot(0, _maybe_finish)

        def show(self) -> None:
            super().show()
            marks["shown"] = now()
            raw["shown"] = time.perf_counter()
            sampler.start()
            state["heartbeat"].start()
            QTimer.singleShot(65_000, lambda: (_maybe_finish(), state["done"] or _finish()))

    main_window_mod.MainWindow = TimedMainWindow  # type: ignore[misc]
    code = cli.main([params["file"]])
    marks["exit_code"] = code
    marks["paints"] = paints[:12]
    sampler.stop()
    if sampler.enabled and "first_paint_start" in raw:
        marks["before_first_paint"] = sampler.attribute(raw["shown"], raw["first_paint_start"], top=12)
    if tracer.enabled:
        marks["trace_summary"] = tracer.summary()
    return marks


# ====================================================================================== child: shared


def _gui_setup() -> tuple[Any, Any]:
    """The application and its event loop, made as ``run_gui`` makes them (``qt_event_loop``)."""
    import asyncio

    from PySide6.QtWidgets import QApplication

    from desktop_app.ui.event_loop import qt_event_loop

    app = QApplication.instance() or QApplication([])
    loop = qt_event_loop(app)
    asyncio.set_event_loop(loop)
    return app, loop


async def _wait_layout(window: Any, kind: str, timeout: float) -> bool:
    """Wait for ``layout_applied(kind)`` (True) or ``timeout`` seconds (False)."""
    import asyncio

    future: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def on(k: str) -> None:
        if k == kind and not future.done():
            future.set_result(None)

    window.graph.layout_applied.connect(on)
    try:
        await asyncio.wait_for(future, timeout)
        return True
    except TimeoutError:
        return False
    finally:
        window.graph.layout_applied.disconnect(on)


async def _settle_layout(window: Any, timeout: float = 60.0) -> None:
    """Until no dot layout is pending, then a short quiet period."""
    import asyncio

    deadline = time.perf_counter() + timeout
    while window.graph.layout_busy and time.perf_counter() < deadline:
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.3)


class _Heartbeat:
    def __init__(self, parent: Any, interval_ms: int = HEARTBEAT_MS) -> None:
        from PySide6.QtCore import Qt, QTimer

        self.beats: list[float] = []
        self.timer = QTimer(parent)
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(lambda: self.beats.append(time.perf_counter()))

    def start(self) -> None:
        self.beats = [time.perf_counter()]
        self.timer.start()

    def stop(self) -> list[float]:
        self.timer.stop()
        self.beats.append(time.perf_counter())
        return self.beats


# ====================================================================================== child: stream


def _child_stream(params: dict[str, Any], started_wall: float, spawned_wall: float) -> dict[str, Any]:
    import asyncio
    from dataclasses import replace

    app, loop = _gui_setup()
    fa = _load_fake_server()
    from desktop_app.agent import AgentSession
    from desktop_app.llm.anthropic import AnthropicProvider, warm_up
    from desktop_app.llm.catalog import DEFAULT_MODEL_ID
    from desktop_app.present.window_state import UiState
    from desktop_app.session import SessionManager
    from desktop_app.settings import Settings
    from desktop_app.ui.main_window import MainWindow

    result: dict[str, Any] = {}
    profile = _Profile(params)
    sampler = _Sampler(params)
    tracer = _Tracer(params)

    async def main() -> None:
        server = fa.FakeAnthropicServer().start()
        try:
            provider = AnthropicProvider(
                api_key="sk-ant-bench-dummy", base_url=server.base_url, model_id=DEFAULT_MODEL_ID
            )
            await warm_up()  # run_gui does this once the window is up (DeferredProvider.warm_up)
            await provider.prepare()
            settings = Settings.load()
            manager = SessionManager.open(_copy_session(params["file"], params["tmp"]), fsync=settings.fsync)
            stream_settings = Settings.load()
            stream_settings.compaction = replace(stream_settings.compaction, enabled=False)
            agent = AgentSession(manager, provider, stream_settings)
            window = MainWindow(agent, settings, ui_state=UiState())
            window.show()
            await _settle_layout(window, 120)  # the whole graph (after the neighbourhood) and dot, if any
            result["dot_before_start"] = window.graph.layout_kind == "dot"
            other = SessionManager.open(_copy_session(params["file"], params["tmp"] + "/other"), fsync=settings.fsync)
            compactor = AgentSession(other, provider, Settings.load())

            content = _stream_text(params["tokens"])
            summary = _stream_text(300)
            heartbeat = _Heartbeat(window)
            marks: dict[str, float] = {}
            counts = {"text_delta": 0, "set_context": 0}
            first_delta = asyncio.get_running_loop().create_future()
            t0 = time.perf_counter()

            def ms() -> float:
                return (time.perf_counter() - t0) * 1000

            def on_agent(event: Any) -> None:
                kind = _event_kind(event)
                if kind == "text_delta":
                    counts["text_delta"] += 1
                    if not first_delta.done():
                        marks["first_delta"] = ms()
                        first_delta.set_result(None)
                elif kind in ("turn_started", "turn_finished", "message_appended"):
                    marks.setdefault(kind, ms())

            def on_compactor(event: Any) -> None:
                kind = _event_kind(event)
                if kind.startswith("compaction_"):
                    marks.setdefault(kind, ms())
                    if kind == "compaction_failed":
                        result["compaction_error"] = str(getattr(event, "error", None) or event.data.get("error"))

            def on_layout(kind: str) -> None:
                marks.setdefault(f"layout_{kind}", ms())
                counts[f"layout_{kind}"] = counts.get(f"layout_{kind}", 0) + 1

            agent.subscribe(on_agent)
            compactor.subscribe(on_compactor)
            window.graph.layout_applied.connect(on_layout)
            original_set_context = window.chat.set_context

            def counted_set_context(messages: Any) -> None:
                counts["set_context"] += 1
                original_set_context(messages)

            window.chat.set_context = counted_set_context  # type: ignore[method-assign]

            server.enqueue(fa.text(content, chunk=DELTA_CHARS, delay=DELTA_DELAY))
            profile.start()
            sampler.start()
            heartbeat.start()
            t0 = heartbeat.beats[0]
            window._on_send("Walk me through how compaction and branches interact, with an example.")
            await asyncio.wait_for(first_delta, 30)
            # The summary request(s) go to the same server; a split turn asks for two at once.
            if params.get("compact", True):
                server.enqueue(
                    fa.text(summary, chunk=16, delay=DELTA_DELAY),
                    fa.text(summary, chunk=16, delay=DELTA_DELAY),
                )
                marks["compaction_requested"] = ms()
                compaction = asyncio.ensure_future(compactor.compact())
            else:
                compaction = asyncio.ensure_future(asyncio.sleep(0))
            while window._tasks:
                await asyncio.gather(*list(window._tasks), return_exceptions=True)
            marks["stream_done"] = ms()
            done = await asyncio.gather(compaction, return_exceptions=True)
            marks["compaction_done"] = ms()
            if isinstance(done[0], BaseException):
                result["compaction_error"] = repr(done[0])
            await _settle_layout(window)
            beats = heartbeat.stop()
            profile.stop()
            sampler.stop()
            result.update(_gap_stats(beats))
            result["worst_gaps"] = _worst_gaps(beats, t0)
            if tracer.enabled:
                result["gap_spans"] = [
                    (at, gap, tracer.within(t0 + at / 1000 - 0.002, t0 + (at + gap) / 1000))
                    for at, gap in _worst_gaps(beats, t0, 4)
                ]
            if sampler.enabled:
                result["gap_stacks"] = [
                    (at, gap, sampler.attribute(t0 + at / 1000, t0 + (at + gap) / 1000))
                    for at, gap in _worst_gaps(beats, t0, 8)
                ]
            result["marks"] = marks
            result["counts"] = counts
            result["span_ms"] = (beats[-1] - beats[0]) * 1000
            result["requests"] = len(server.message_requests())
            result["request_bytes"] = [len(r.raw_body) for r in server.message_requests()]
            result["entries_after"] = len(manager.get_entries())
            result["peak_rss"] = _proc_status().get("VmHWM")
            window.close()
        finally:
            server.stop()

    with loop:
        loop.run_until_complete(main())
    return result


# ====================================================================================== child: switch


def _distant_leaves(manager: Any) -> tuple[str, str]:
    """The file's leaf (or its nearest non-user ancestor) and the leaf whose branch leaves the active path
    closest to the root (the deepest such leaf on ties)."""
    index = manager.index

    def usable(entry_id: str) -> bool:
        entry = index.by_id.get(entry_id)
        if not entry or entry.get("type") != "message":
            return False
        return entry["message"].get("role") in ("assistant", "toolResult")

    main_path = [e["id"] for e in manager.get_branch()]
    a = next(i for i in reversed(main_path) if usable(i))
    depth_on_main = {entry_id: d for d, entry_id in enumerate(main_path)}
    best: tuple[int, int, str] | None = None
    for leaf in index.leaves():
        if leaf == a or not usable(leaf):
            continue
        path = [e["id"] for e in index.get_branch(leaf)]
        split = max((depth_on_main[i] for i in path if i in depth_on_main), default=-1)
        key = (split, -len(path), leaf)
        if best is None or key < best:
            best = key
    assert best is not None, "the session has a single branch"
    return a, best[2]


def _child_switch(params: dict[str, Any], started_wall: float, spawned_wall: float) -> dict[str, Any]:
    import asyncio

    app, loop = _gui_setup()
    from desktop_app.agent import AgentSession
    from desktop_app.llm.offline import OfflineProvider
    from desktop_app.present.window_state import UiState
    from desktop_app.session import SessionManager
    from desktop_app.settings import Settings
    from desktop_app.ui.main_window import MainWindow

    result: dict[str, Any] = {"api": [], "ui": []}
    profile = _Profile(params)
    tracer = _Tracer(params)
    sampler = _Sampler(params)  # with "sample": what the UI thread ran during each switch

    async def main() -> None:
        settings = Settings.load()
        settings.branch_summary.skip_prompt = True  # "No summary", no dialog
        manager = SessionManager.open(_copy_session(params["file"], params["tmp"]), fsync=settings.fsync)
        agent = AgentSession(manager, OfflineProvider(), settings)
        window = MainWindow(agent, settings, ui_state=UiState())
        window.show()
        await _settle_layout(window, 120)
        a, b = _distant_leaves(manager)
        result["leaves"] = {
            "a": a,
            "b": b,
            "a_path": len(manager.index.get_branch(a)),
            "b_path": len(manager.index.get_branch(b)),
        }
        calls: dict[str, Any] = {}
        original_set_context = window.chat.set_context

        def timed_set_context(messages: Any) -> None:
            calls["set_context"] = calls.get("set_context", 0) + 1
            calls["rows"] = len(messages)
            original_set_context(messages)
            calls["set_context_end"] = time.perf_counter()

        window.chat.set_context = timed_set_context  # type: ignore[method-assign]
        layouts: list[str] = []
        window.graph.layout_applied.connect(layouts.append)

        async def one(target: str, how: str) -> dict[str, Any]:
            calls.clear()
            layouts.clear()
            heartbeat = _Heartbeat(window)
            heartbeat.start()
            start = time.perf_counter()
            cpu_start = time.thread_time()
            if how == "api":
                await agent.navigate_tree(target)
            else:
                window.graph.node_activated.emit(target)
                while window._tasks:
                    await asyncio.gather(*list(window._tasks), return_exceptions=True)
            rebound = time.perf_counter()
            window.repaint()  # one full paint of the window, synchronously
            painted = time.perf_counter()
            cpu_ms = (time.thread_time() - cpu_start) * 1000  # the UI thread's own CPU time: the rest is waiting
            assert manager.leaf_id == target, (manager.leaf_id, target)
            relayout = "tidy" in layouts
            deadline = time.perf_counter() + 120
            while window.graph.layout_busy and time.perf_counter() < deadline:  # whole graph / dot
                await asyncio.sleep(0.01)
            dot_applied = time.perf_counter()
            await asyncio.sleep(0.2)
            beats = heartbeat.stop()
            return {
                "stacks": sampler.attribute(start, painted, top=12) if sampler.enabled else None,
                "ui_thread_cpu_ms": cpu_ms,
                "spans": tracer.within(start, painted) if tracer.enabled else None,
                "target": target,
                "rebound_ms": (rebound - start) * 1000,
                "set_context_end_ms": (calls["set_context_end"] - start) * 1000
                if "set_context_end" in calls
                else None,
                "set_context_calls": calls.get("set_context", 0),
                "context_rows": calls.get("rows"),
                "total_ms": (painted - start) * 1000,
                "paint_ms": (painted - rebound) * 1000,
                "relayout": relayout,
                "layouts": list(layouts),
                "dot_ms": (dot_applied - start) * 1000 if relayout else None,
                "max_gap_after_ms": _gap_stats([b for b in beats if b >= painted])["max_gap_ms"],
            }

        profile.start()
        sampler.start()
        for how in params.get("series", ("api", "ui")):
            for i in range(params["switches"]):
                result[how].append(await one(b if i % 2 == 0 else a, how))
            if manager.leaf_id != a:  # both series start from the file's leaf
                await agent.navigate_tree(a)
                await _settle_layout(window)
        profile.stop()
        sampler.stop()
        if tracer.enabled:
            result["trace_summary"] = tracer.summary()
        result["peak_rss"] = _proc_status().get("VmHWM")
        window.close()

    with loop:
        loop.run_until_complete(main())
    return result


CHILDREN = {"open": _child_open, "stream": _child_stream, "switch": _child_switch}


def _child_main(kind: str, params_json: str, out: str, spawned: str) -> int:
    started_wall = time.time()
    result = CHILDREN[kind](json.loads(params_json), started_wall, float(spawned))
    Path(out).write_text(json.dumps(result, default=str), encoding="utf-8")
    return 0


# ====================================================================================== parent


def _row(
    measure: str, target: str, value: float | None, unit: str, passed: bool | None, **extra: Any
) -> dict[str, Any]:
    return {"measure": measure, "target": target, "value": value, "unit": unit, "passed": passed, **extra}


def _median(values: list[float]) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def run(quick: bool = False, runs: int | None = None, tokens: int | None = None) -> list[dict[str, Any]]:
    from benchmarks.generate import cached_session, describe

    n = QUICK_ENTRIES if quick else FULL_ENTRIES
    runs = runs or (2 if quick else 5)
    tokens = tokens or (QUICK_TOKENS if quick else FULL_TOKENS)
    file, stats = cached_session(n)
    print(f"session {n:,}: {describe(stats)}", file=sys.stderr, flush=True)
    rows: list[dict[str, Any]] = []
    common = {"entries": n}

    # 1 + 4. open → interactive, memory
    calibration = _calibrate()
    for variant, anthropic in (("offline model", False), ("Anthropic provider", True)):
        print(f"open ({variant}) untimed start (fills the bytecode cache) ...", file=sys.stderr, flush=True)
        _spawn("open", {"file": str(file)}, anthropic=anthropic)
        results = []
        for i in range(runs):
            print(f"open ({variant}) run {i + 1}/{runs} ...", file=sys.stderr, flush=True)
            results.append(_spawn("open", {"file": str(file)}, anthropic=anthropic))
        interactive = [r["first_paint_end"] for r in results if "first_paint_end" in r]
        from_open = [r["first_paint_end"] - r["before_open"] for r in results if "first_paint_end" in r]
        dots = [r["dot"] for r in results if "dot" in r]
        med = _median(interactive)
        extra = {
            "variant": variant,
            "runs": len(results),
            "min": min(interactive, default=None),
            "max": max(interactive, default=None),
            "from_open_ms": _median(from_open),
            "phases": {
                k: _median([r.get(k) for r in results])
                for k in (
                    "interpreter_ready",
                    "cli_imported",
                    "gui_imported",
                    "before_open",
                    "after_open",
                    "before_provider",
                    "after_provider",
                    "window_init",
                    "window_built",
                    "shown",
                    "first_paint_start",
                    "first_paint_end",
                    "first_turn_after_paint",
                    "dot",
                    "end",
                )
            },
            "view_nodes": results[0].get("view_nodes"),
            "first_paint_layout": results[0].get("first_paint_layout"),
            "stall_after_shown_ms": _median(
                [r["beats"]["stall_ms"] for r in results if r.get("beats", {}).get("stall_ms") is not None]
            ),
            **common,
        }
        rows.append(
            _row(
                "open",
                f"≤ {TARGET_OPEN_MS:,.0f} ms",
                med,
                "ms",
                med is not None and med <= TARGET_OPEN_MS,
                **extra,
            )
        )
        rows.append(
            _row(
                "open_dot",
                "",
                _median(dots),
                "ms",
                None,
                variant=variant,
                runs=len(dots),
                wants_dot=results[0].get("wants_dot"),
                **common,
            )
        )
        rows.append(
            _row(
                "peak_rss",
                "",
                _median([r.get("peak_rss") for r in results]),
                "bytes",
                None,
                variant=variant,
                rss_end=_median([r.get("rss") for r in results]),
                **common,
            )
        )

    # 2. stall while streaming + compacting
    print(f"streaming {tokens:,} deltas + compaction ...", file=sys.stderr, flush=True)
    s = _spawn("stream", {"file": str(file), "tokens": tokens})
    rows.append(
        _row(
            "stall",
            f"≤ {TARGET_STALL_MS:,.0f} ms",
            s.get("stall_ms"),
            "ms",
            s.get("stall_ms") is not None and s["stall_ms"] <= TARGET_STALL_MS,
            median_gap_ms=s.get("median_gap_ms"),
            p99_gap_ms=s.get("p99_gap_ms"),
            beats=s.get("beats"),
            gaps_over_20ms=s.get("gaps_over_20ms"),
            gaps_over_50ms=s.get("gaps_over_50ms"),
            worst_gaps=s.get("worst_gaps"),
            marks=s.get("marks"),
            counts=s.get("counts"),
            requests=s.get("requests"),
            request_bytes=s.get("request_bytes"),
            compaction_error=s.get("compaction_error"),
            span_ms=s.get("span_ms"),
            tokens=tokens,
            peak_rss=s.get("peak_rss"),
            **common,
        )
    )

    print(f"streaming {tokens:,} deltas alone (for comparison) ...", file=sys.stderr, flush=True)
    alone = _spawn("stream", {"file": str(file), "tokens": tokens, "compact": False})
    rows.append(
        _row(
            "stall_stream_only",
            "",
            alone.get("stall_ms"),
            "ms",
            None,
            median_gap_ms=alone.get("median_gap_ms"),
            p99_gap_ms=alone.get("p99_gap_ms"),
            worst_gaps=alone.get("worst_gaps"),
            marks=alone.get("marks"),
            counts=alone.get("counts"),
            tokens=tokens,
            **common,
        )
    )

    # 3. branch switch
    switches = 3 if quick else 5
    print(f"branch switch × {switches} (twice: agent API, window path) ...", file=sys.stderr, flush=True)
    w = _spawn("switch", {"file": str(file), "switches": switches})
    for how, label in (("api", "switch"), ("ui", "switch_ui")):
        series = w[how]
        totals = [x["total_ms"] for x in series]
        med = _median(totals)
        rows.append(
            _row(
                label,
                f"≤ {TARGET_SWITCH_MS:,.0f} ms" if how == "api" else "",
                med,
                "ms",
                (med is not None and med <= TARGET_SWITCH_MS) if how == "api" else None,
                min=min(totals),
                max=max(totals),
                rebound_ms=_median([x["rebound_ms"] for x in series]),
                paint_ms=_median([x["paint_ms"] for x in series]),
                set_context_calls=series[0]["set_context_calls"],
                relayouts=sum(1 for x in series if x["relayout"]),
                dot_ms=_median([x["dot_ms"] for x in series if x["dot_ms"] is not None]),
                max_gap_after_ms=max((x["max_gap_after_ms"] or 0) for x in series),
                rows_per_context=[x["context_rows"] for x in series[:2]],
                leaves=w.get("leaves"),
                series=series,
                **common,
            )
        )
    rows.append(
        _row(
            "calibration", "", calibration, "ms", None, before_ms=calibration, after_ms=_calibrate(), **common
        )
    )
    return rows


def _calibrate() -> float:
    """Milliseconds this machine takes for a fixed pure-Python loop (best of 3): compare runs by it."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        sum(i * i for i in range(2_000_000))
        best = min(best, (time.perf_counter() - start) * 1000)
    return best


def _fmt_ms(value: Any) -> str:
    return "–" if value is None else f"{value:,.0f} ms" if value >= 100 else f"{value:,.1f} ms"


def _fmt_bytes(value: Any) -> str:
    return "–" if value is None else f"{value / 1024 / 1024:,.0f} MB"


def _mark(passed: Any) -> str:
    return "–" if passed is None else ("pass" if passed else "**FAIL**")


def markdown(rows: list[dict[str, Any]]) -> str:
    by: dict[tuple[str, str | None], dict[str, Any]] = {(r["measure"], r.get("variant")): r for r in rows}
    n = rows[0]["entries"] if rows else 0
    lines = [
        f"On a generated {n:,}-entry session (offscreen Qt, the real `MainWindow`); each open in a fresh "
        "process, medians.",
        "",
        "| measure | target | measured | pass |",
        "|---|---|---:|---|",
    ]
    for variant in ("offline model", "Anthropic provider"):
        r = by.get(("open", variant))
        if r:
            lines.append(
                f"| `arbor FILE` → interactive graph ({variant}; from spawn, median of {r['runs']}; "
                f"min {_fmt_ms(r['min'])}, max {_fmt_ms(r['max'])}) | {r['target']} | {_fmt_ms(r['value'])} | "
                f"{_mark(r['passed'])} |"
            )
            lines.append(
                f"| … of which from `SessionManager.open` to first graph paint | | {_fmt_ms(r['from_open_ms'])} | |"
            )
        d = by.get(("open_dot", variant))
        if d and d["value"] is not None:
            lines.append(f"| … until the `dot` layout is on screen ({variant}) | | {_fmt_ms(d['value'])} | |")
    s = by.get(("stall", None))
    if s:
        lines.append(
            f"| longest event-loop stall, streaming {s['tokens']:,} deltas + compacting at once "
            f"(5 ms heartbeat; max gap − 5 ms) | {s['target']} | {_fmt_ms(s['value'])} | {_mark(s['passed'])} |"
        )
        lines.append(
            f"| … median / p99 heartbeat gap | | {_fmt_ms(s['median_gap_ms'])} / {_fmt_ms(s['p99_gap_ms'])} | |"
        )
    a = by.get(("stall_stream_only", None))
    if a:
        lines.append(
            f"| … the same stream without the compaction: longest stall; median / p99 gap | | "
            f"{_fmt_ms(a['value'])}; {_fmt_ms(a['median_gap_ms'])} / {_fmt_ms(a['p99_gap_ms'])} | |"
        )
    for label, text in (
        (
            "switch",
            "branch switch, no summary (`navigate_tree` → chat re-bound, graph updated, "
            "one paint; median of {k})",
        ),
        ("switch_ui", "… the same through the window (`node_activated`, as a double-click; median of {k})"),
    ):
        r = by.get((label, None))
        if r:
            lines.append(
                f"| {text.format(k=len(r['series']))}; min {_fmt_ms(r['min'])}, max {_fmt_ms(r['max'])} | "
                f"{r['target']} | {_fmt_ms(r['value'])} | {_mark(r['passed'])} |"
            )
    for variant in ("offline model", "Anthropic provider"):
        r = by.get(("peak_rss", variant))
        if r:
            lines.append(
                f"| peak RSS of the GUI process, session open, dot on screen ({variant}) | | "
                f"{_fmt_bytes(r['value'])} | |"
            )
    if s:
        lines.append(
            f"| peak RSS of the streaming + compacting process | | {_fmt_bytes(s.get('peak_rss'))} | |"
        )
    c = by.get(("calibration", None))
    if c:
        lines += [
            "",
            f"Machine speed: a fixed pure-Python loop (`sum(i * i for i in range(2_000_000))`) took "
            f"{c['before_ms']:,.0f} ms before and {c['after_ms']:,.0f} ms after these measurements.",
        ]
    return "\n".join(lines)


def details(rows: list[dict[str, Any]]) -> str:
    """Phase timings and attributions, for the console."""
    out: list[str] = []
    for r in rows:
        if r["measure"] == "open":
            phases = ", ".join(f"{k} {v:,.0f}" for k, v in r["phases"].items() if v is not None)
            out.append(
                f"open ({r['variant']}), ms from spawn: {phases}; view nodes {r['view_nodes']}, "
                f"first paint with {r['first_paint_layout']}, stall after show {_fmt_ms(r['stall_after_shown_ms'])}"
            )
        elif r["measure"] == "stall":
            out.append(f"stall: marks {json.dumps({k: round(v) for k, v in (r['marks'] or {}).items()})}")
            out.append(
                f"stall: counts {r['counts']}, requests {r['requests']} ({r['request_bytes']} bytes), "
                f"span {r['span_ms']:,.0f} ms, beats {r['beats']}, >20 ms: {r['gaps_over_20ms']}, "
                f">50 ms: {r['gaps_over_50ms']}, compaction error: {r['compaction_error']}"
            )
            out.append(
                "stall: worst gaps (at ms, gap ms): "
                + ", ".join(f"({a:,.0f}, {g:,.1f})" for a, g in r["worst_gaps"] or [])
            )
        elif r["measure"] == "stall_stream_only":
            out.append(
                "stream only: worst gaps (at ms, gap ms): "
                + ", ".join(f"({a:,.0f}, {g:,.1f})" for a, g in r["worst_gaps"] or [])
                + f"; marks {json.dumps({k: round(v) for k, v in (r['marks'] or {}).items()})}"
            )
        elif r["measure"] in ("switch", "switch_ui"):
            out.append(f"{r['measure']}: leaves {r['leaves']}")
            for x in r["series"]:
                out.append(
                    f"  → {x['target']}: rebound {x['rebound_ms']:,.1f} ms (set_context ×{x['set_context_calls']}, "
                    f"{x['context_rows']} rows), paint {x['paint_ms']:,.1f} ms, total {x['total_ms']:,.1f} ms, "
                    f"relayout {x['relayout']} {x['layouts']}, dot at {_fmt_ms(x['dot_ms'])}, "
                    f"max gap after paint {_fmt_ms(x['max_gap_after_ms'])}"
                )
    return "\n".join(out)


def profile(
    kind: str, quick: bool, tokens: int | None, anthropic: bool = False, limit: int = 30, entries: int | None = None
) -> None:
    """One child under cProfile (top functions by cumulative and own time), then one with the span
    tracer (:data:`TRACED`): for ``stream``, what ran inside the longest heartbeat gaps; otherwise
    per-function medians. The tracer adds little overhead, cProfile roughly doubles Python time."""
    import pstats

    from benchmarks.generate import cached_session

    n = entries or (QUICK_ENTRIES if quick else FULL_ENTRIES)
    file, _ = cached_session(n)
    with tempfile.TemporaryDirectory(prefix="arbor-bench-prof-") as tmp:
        path = str(Path(tmp) / f"{kind}.prof")
        params: dict[str, Any] = {"file": str(file)}
        if kind == "stream":
            params["tokens"] = tokens or (QUICK_TOKENS if quick else FULL_TOKENS)
        if kind == "switch":
            params["switches"] = 3 if quick else 5
        _spawn(kind, {**params, "profile": path}, anthropic=anthropic)
        stats = pstats.Stats(path)
        stats.sort_stats("cumulative").print_stats(limit)
        stats.sort_stats("tottime").print_stats(limit)
    traced = _spawn(kind, {**params, "trace": True}, anthropic=anthropic)
    if kind == "stream":
        print(
            f"stall {traced['stall_ms']:.1f} ms; longest gaps and the traced calls that began in them "
            "(offset from the gap's start, duration):"
        )
        for at, gap, spans in traced["gap_spans"]:
            print(f"  gap at {at:,.0f} ms into the run, {gap:.1f} ms:")
            for offset, duration, name in spans:
                print(f"    +{offset:6.1f} {duration:7.1f} ms  {name}")
    else:
        if kind == "switch":
            print(
                "switch totals (ms): api",
                [round(x["total_ms"]) for x in traced["api"]],
                "window",
                [round(x["total_ms"]) for x in traced["ui"]],
            )
        else:
            print(
                "open phases (ms from spawn):",
                {k: round(v) for k, v in traced.items() if isinstance(v, float)},
            )
        print(f"{'traced function':45s} {'calls':>6s} {'median':>9s} {'max':>9s}")
        for name, (calls, med, top) in traced["trace_summary"].items():
            print(f"{name:45s} {calls:6d} {med:7.1f}ms {top:7.1f}ms")


#: Hostile markdown (issue 13 item 4): one message, rendered to HTML and laid out as the chat does.
MARKDOWN_CASES = {
    '"- " × 1,000 + text': '"- " * 1_000 + "x"',
    '"- " × 10,000 (a horizontal rule)': '"- " * 10_000',
    '"- " × 10,000 + text (10,000 nested lists)': '"- " * 10_000 + "x"',
    '"1. " × 5,000 + text': '"1. " * 5_000 + "x"',
    '"> " × 5,000 + text': '"> " * 5_000 + "x"',
    "400 lines, each indented one level deeper": '"\\n".join("  " * i + "- x" for i in range(400))',
}
_MARKDOWN_CHILD = """
import json, sys, time
from PySide6.QtWidgets import QApplication
app = QApplication([])
from desktop_app.ui.markdown import SafeTextDocument, markdown_to_html, markdown_to_html_streaming
out = {}
for name, expr in json.loads(sys.argv[1]).items():
    text = eval(expr)
    best = None
    for render in (markdown_to_html, markdown_to_html_streaming):
        start = time.perf_counter()
        html = render(text)
        doc = SafeTextDocument()
        doc.setTextWidth(600)
        doc.setHtml(html)
        doc.size()
        took = (time.perf_counter() - start) * 1000
        best = took if best is None else max(best, took)
    out[name] = best
print(json.dumps(out))
"""


def markdown_figures(roots: list[Path], timeout: float = 120.0) -> dict[str, dict[str, float | None]]:
    """Worst of finished and streaming render + layout (ms) of each :data:`MARKDOWN_CASES` input,
    for the checkout at each of ``roots`` (a fresh process each; ``None``: over ``timeout`` s)."""
    results: dict[str, dict[str, float | None]] = {}
    for root in roots:
        env = dict(os.environ, PYTHONPATH=str(root), QT_QPA_PLATFORM="offscreen")
        figures: dict[str, float | None] = {}
        for name, expr in MARKDOWN_CASES.items():
            try:
                done = subprocess.run(
                    [sys.executable, "-c", _MARKDOWN_CHILD, json.dumps({name: expr})],
                    cwd=root, env=env, capture_output=True, text=True, timeout=timeout, check=True,
                )
                figures[name] = json.loads(done.stdout.strip().splitlines()[-1])[name]
            except subprocess.TimeoutExpired:
                figures[name] = None
        results[str(root)] = figures
    return results


# ====================================================================================== vs pi


PI_SCRIPT = Path(__file__).resolve().with_name("pi_side_by_side.mjs")


def _wall(command: list[str], env: dict[str, str]) -> tuple[float, str]:
    """Wall time (ms) of one process from spawn to exit, and its stdout."""
    start = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=CHILD_TIMEOUT)
    took = (time.perf_counter() - start) * 1000
    if done.returncode != 0:
        raise RuntimeError(f"{command[:3]} exited with {done.returncode}: {done.stderr[-1500:]}")
    return took, done.stdout


def vs_pi(sizes: list[int], runs: int = 3, pi_dir: str | None = None) -> list[dict[str, Any]]:
    """Issue 10 item 8, in one run with pi: for each session size, interleaved fresh processes of
    (a) ``arbor FILE`` until the graph's first painted layout (the ``open`` child: spawn → first
    paint, offline model), (b) ``arbor screenshot FILE`` (spawn → PNG written, process exited) and
    (c) a node process that only opens the file with pi 0.73.1 and builds its context
    (``pi_side_by_side.mjs --rss``: spawn → exit). Medians side by side; pi's peak RSS too."""
    from benchmarks.generate import cached_session, describe

    pi = pi_dir or os.environ.get("PI_DIR", "/tmp/pi0731")
    rows: list[dict[str, Any]] = []
    for n in sizes:
        file, stats = cached_session(n)
        print(f"session {n:,}: {describe(stats)}", file=sys.stderr, flush=True)
        samples: dict[str, list[float]] = {"open": [], "open_rss": [], "screenshot": [], "pi": [], "pi_rss": []}
        with tempfile.TemporaryDirectory(prefix="arbor-bench-vs-pi-") as tmp:
            env = _child_env(Path(tmp) / "home", anthropic=False)
            shot = [sys.executable, "-m", "desktop_app", "screenshot", str(file), "--out", str(Path(tmp) / "shot.png")]
            node = ["node", str(PI_SCRIPT), "--pi", pi, "--rss", str(file)]
            _wall(shot, env)  # untimed: fills the bytecode cache
            _wall(node, env)
            for i in range(runs):
                print(f"  run {i + 1}/{runs}: arbor FILE, arbor screenshot, pi open ...", file=sys.stderr, flush=True)
                opened = _spawn("open", {"file": str(file)})
                if "first_paint_end" in opened:
                    samples["open"].append(opened["first_paint_end"])
                if opened.get("peak_rss"):
                    samples["open_rss"].append(opened["peak_rss"])
                samples["screenshot"].append(_wall(shot, env)[0])
                took, out = _wall(node, env)
                samples["pi"].append(took)
                peak = json.loads(out.strip().splitlines()[-1]).get("peakKiB")
                if peak:
                    samples["pi_rss"].append(peak * 1024)
        medians = {k: _median(v) for k, v in samples.items()}
        rows.append({"entries": n, "bytes": stats.bytes, "runs": runs, "samples": samples, "medians": medians})
    return rows


def vs_pi_markdown(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| entries (file) | `arbor FILE` → first painted graph | `arbor screenshot` → PNG, exited | pi: node opens the file, exits | arbor FILE / pi | screenshot / pi | peak RSS arbor FILE | peak RSS pi |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    def ratio(m: dict[str, Any], key: str) -> str:
        return f"{m[key] / m['pi']:.2f}×" if m.get(key) and m.get("pi") else "–"

    for r in rows:
        m = r["medians"]
        lines.append(
            f"| {r['entries']:,} ({r['bytes'] / 1e6:,.0f} MB) | {_fmt_ms(m['open'])} | {_fmt_ms(m['screenshot'])} | "
            f"{_fmt_ms(m['pi'])} | {ratio(m, 'open')} | {ratio(m, 'screenshot')} | {_fmt_bytes(m['open_rss'])} | "
            f"{_fmt_bytes(m['pi_rss'])} |"
        )
    return "\n".join(lines)



# ====================================================================================== issue 10 at sizes

#: Issue 10 item 8's targets.
TARGET10_OPEN_RATIO = 0.5  #: `arbor FILE` to a legible picture, as a share of pi's open
TARGET10_NEIGHBOURHOOD_MS = 500.0
TARGET10_SWITCH_MS = 50.0
TARGET10_STALL_MS = 16.0
TARGET10_RSS = 0.5e9


def _pi_command(file: Path) -> list[str] | None:
    """``node pi_side_by_side.mjs --rss FILE`` when node and pi 0.73.1 are installed, else ``None``."""
    pi = Path(os.environ.get("PI_DIR", "/tmp/pi0731"))
    if shutil.which("node") is None or not (pi / "node_modules/@mariozechner/pi-coding-agent").is_dir():
        return None
    return ["node", str(PI_SCRIPT), "--pi", str(pi), "--rss", str(file)]


def at_sizes(sizes: list[int], runs: int = 3, tokens: int = FULL_TOKENS) -> list[dict[str, Any]]:
    """Issue 10 item 8 at each size, in one run with pi: ``runs`` interleaved fresh processes of
    ``arbor FILE`` (the ``open`` child, offline model) and of node opening the file with pi; then
    one streaming + compacting child and one branch-switch child. Medians."""
    from benchmarks.generate import cached_session, describe

    rows: list[dict[str, Any]] = []
    for n in sizes:
        file, stats = cached_session(n)
        print(f"session {n:,}: {describe(stats)}", file=sys.stderr, flush=True)
        pi = _pi_command(file)
        samples: dict[str, list[float]] = {
            k: []
            for k in (
                "first_picture",
                "neighbourhood",
                "complete",
                "open_stall",
                "peak_rss",
                "pi",
                "pi_rss",
                "engine_open",
            )
        }
        first_items: list[int] = []
        _spawn("open", {"file": str(file)})  # untimed: fills the bytecode cache
        with tempfile.TemporaryDirectory(prefix="arbor-bench-sizes-") as tmp:
            env = _child_env(Path(tmp) / "home", anthropic=False)
            if pi is not None:
                _wall(pi, env)
            for i in range(runs):
                print(f"  run {i + 1}/{runs}: arbor FILE, pi open ...", file=sys.stderr, flush=True)
                r = _spawn("open", {"file": str(file)})
                if "first_paint_end" in r:
                    samples["first_picture"].append(r["first_paint_end"])
                    samples["neighbourhood"].append(r["first_paint_end"] - r["after_open"])
                    first_items.append(r.get("first_paint_items", 0))
                if "complete_paint_end" in r:
                    samples["complete"].append(r["complete_paint_end"])
                samples["engine_open"].append(r["after_open"] - r["before_open"])
                if r.get("beats", {}).get("stall_ms") is not None:
                    samples["open_stall"].append(r["beats"]["stall_ms"])
                if r.get("peak_rss"):
                    samples["peak_rss"].append(r["peak_rss"])
                if pi is not None:
                    took, out = _wall(pi, env)
                    samples["pi"].append(took)
                    peak = json.loads(out.strip().splitlines()[-1]).get("peakKiB")
                    if peak:
                        samples["pi_rss"].append(peak * 1024)
        print(f"  streaming {tokens:,} deltas + compacting ...", file=sys.stderr, flush=True)
        try:
            stream = _spawn("stream", {"file": str(file), "tokens": tokens})
        except Exception as exc:  # noqa: BLE001 - reported in the table, the other sizes still run
            stream = {"error": repr(exc)[-500:]}
        print("  branch switch × 5 ...", file=sys.stderr, flush=True)
        try:
            switch = _spawn("switch", {"file": str(file), "switches": 5})
        except Exception as exc:  # noqa: BLE001
            switch = {"error": repr(exc)[-500:], "api": [], "ui": []}
        medians = {k: _median(v) for k, v in samples.items()}
        rows.append(
            {
                "entries": n,
                "bytes": stats.bytes,
                "runs": runs,
                "samples": samples,
                "medians": medians,
                "first_items": first_items,
                "stall_ms": stream.get("stall_ms"),
                "stall_p99_ms": stream.get("p99_gap_ms"),
                "stall_worst": stream.get("worst_gaps"),
                "stream_rss": stream.get("peak_rss"),
                "compaction_error": stream.get("compaction_error"),
                "switch_ms": _median([x["total_ms"] for x in switch["api"]]),
                "switch_ui_ms": _median([x["total_ms"] for x in switch["ui"]]),
                "switch_complete_ms": _median([x["dot_ms"] for x in switch["api"] if x["dot_ms"] is not None]),
                "switch_error": switch.get("error"),
                "stream_error": stream.get("error"),
                "switch_series": [round(x["total_ms"], 1) for x in switch["api"]],
                "switch_relayouts": sum(1 for x in switch["api"] if x["relayout"]),
                "leaves": switch.get("leaves"),
                "calibration_ms": _calibrate(),
                "tokens": tokens,
            }
        )
    return rows


def freeze(sizes: list[int], runs: int = 3, before: str | None = None) -> list[dict[str, Any]]:
    """Issue 28 item 1: ``runs`` fresh ``arbor FILE`` processes (the ``open`` child) at each size,
    a 5 ms heartbeat running from the first picture's paint until the whole graph's; the longest
    gap between two beats (the window's ends count as beats). With ``before`` (another checkout,
    e.g. ``git archive`` of the commit before a change), its app runs in the same harness,
    interleaved run by run, so both see the same machine. Medians."""
    from benchmarks.generate import cached_session

    rows: list[dict[str, Any]] = []
    roots: dict[str, str | None] = {"now": None}
    if before:
        roots = {"before": str(Path(before).resolve()), **roots}
    for n in sizes:
        file, _ = cached_session(n)
        samples: dict[str, dict[str, list[float]]] = {
            k: {"max_gap": [], "span": [], "beats": [], "first_gap": [], "install_gap": [], "rest_gap": []} for k in roots
        }
        worst: dict[str, list[Any]] = {k: [] for k in roots}
        # when the whole file was installed and the whole graph laid out, ms after the first
        # picture: which of them a worst gap falls beside
        phases: dict[str, list[Any]] = {k: [] for k in roots}
        for root in roots.values():  # untimed: fills each checkout's bytecode cache
            _spawn("open", {"file": str(file), **({"code_root": root} if root else {})})
        for i in range(runs):
            for label, root in roots.items():
                print(f"  {n:,} entries, run {i + 1}/{runs}: {label} ...", file=sys.stderr, flush=True)
                r = _spawn("open", {"file": str(file), **({"code_root": root} if root else {})})
                f = r.get("freeze")
                if f:
                    samples[label]["max_gap"].append(f["max_gap_ms"])
                    samples[label]["span"].append(f["span_ms"])
                    samples[label]["beats"].append(f["beats"])
                    for part, gap in f.get("phase_gaps", {}).items():
                        if gap is not None:
                            samples[label][f"{part}_gap"].append(gap)
                    worst[label].append([(round(at), round(gap, 1)) for at, gap in f["worst_gaps"][:3]])
                    phases[label].append(
                        {k: round(r[k] - r["first_paint_end"]) for k in ("loaded", "tidy", "complete_paint_end") if k in r}
                    )
        rows.append(
            {
                "entries": n,
                "runs": runs,
                "samples": samples,
                "medians": {k: {m: _median(v) for m, v in by.items()} for k, by in samples.items()},
                "worst": worst,
                "phases": phases,
                "calibration_ms": _calibrate(),
            }
        )
    return rows


def freeze_markdown(rows: list[dict[str, Any]]) -> str:
    labels = list(rows[0]["medians"]) if rows else []
    head = "| measure | target | " + " | ".join(
        f"{r['entries']:,} entries: {label}" for r in rows for label in labels
    ) + " |"
    lines = [head, "|---|---|" + "---:|" * (len(rows) * len(labels))]
    cells = []
    for r in rows:
        for label in labels:
            m = r["medians"][label]["max_gap"]
            cells.append("–" if m is None else f"{m:,.0f} ms" + (" (met)" if m <= TARGET28_FREEZE_MS else " (**not met**)"))
    lines.append(
        "| longest heartbeat gap, first picture → whole graph painted (5 ms heartbeat, median of "
        f"{rows[0]['runs'] if rows else 0}) | ≤ {TARGET28_FREEZE_MS:,.0f} ms | " + " | ".join(cells) + " |"
    )
    spans = [
        _fmt_ms(r["medians"][label]["span"]) for r in rows for label in labels
    ]
    lines.append("| … first picture → whole graph painted | | " + " | ".join(spans) + " |")
    every = [
        ", ".join(f"{v:,.0f}" for v in r["samples"][label]["max_gap"]) for r in rows for label in labels
    ]
    lines.append("| … every run's longest gap (ms) | | " + " | ".join(every) + " |")
    for part, what in (
        ("first", "the turn right after the first picture (the rest of the first frame)"),
        ("install", f"the whole file's install (its turns, {INSTALL_WINDOW_MS:.0f} ms from its start)"),
        ("rest", "everything else (the build, the swap, the paints)"),
    ):
        values = [r["samples"][label].get(f"{part}_gap", []) for r in rows for label in labels]
        cells = [
            "–" if not v else f"{_median(v):,.0f} ms ({', '.join(f'{x:,.0f}' for x in v)})" for v in values
        ]
        lines.append(f"| … longest gap in {what}: median (runs) | | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def at_sizes_markdown(rows: list[dict[str, Any]]) -> str:
    def cell(value: Any, fmt: Callable[[Any], str]) -> str:
        return "–" if value is None else fmt(value)

    def verdict(ok: bool | None) -> str:
        return "–" if ok is None else ("met" if ok else "**not met**")

    head = "| measure | target | " + " | ".join(f"{r['entries']:,} entries ({r['bytes'] / 1e6:,.0f} MB)" for r in rows) + " |"
    lines = [head, "|---|---|" + "---:|" * len(rows)]

    def line(name: str, target: str, values: list[str]) -> None:
        lines.append(f"| {name} | {target} | " + " | ".join(values) + " |")

    ms = _fmt_ms
    line("`SessionManager.open` in the window process", "", [ms(r["medians"]["engine_open"]) for r in rows])
    line("`arbor FILE` → first painted picture (spawn → end of paint)", "", [ms(r["medians"]["first_picture"]) for r in rows])
    line("pi 0.73.1: node opens the file and builds the context (spawn → exit)", "", [ms(r["medians"]["pi"]) for r in rows])
    ratios = []
    for r in rows:
        m = r["medians"]
        ratio = m["first_picture"] / m["pi"] if m.get("first_picture") and m.get("pi") else None
        ratios.append(cell(ratio, lambda v: f"{v:.2f}× ({verdict(v <= TARGET10_OPEN_RATIO)})"))
    line("first picture / pi", f"≤ {TARGET10_OPEN_RATIO}×", ratios)
    line(
        "leaf neighbourhood on screen (session opened → end of first paint; its nodes)",
        f"≤ {TARGET10_NEIGHBOURHOOD_MS:,.0f} ms",
        [
            f"{ms(r['medians']['neighbourhood'])} ({r['first_items'][0] if r['first_items'] else '?'} nodes; "
            f"{verdict(r['medians']['neighbourhood'] is not None and r['medians']['neighbourhood'] <= TARGET10_NEIGHBOURHOOD_MS)})"
            for r in rows
        ],
    )
    line("`arbor FILE` → the whole graph painted (spawn)", "", [ms(r["medians"]["complete"]) for r in rows])
    line("longest event-loop stall from show until the whole graph is painted", "", [ms(r["medians"]["open_stall"]) for r in rows])
    line(
        "branch switch, `navigate_tree` → chat re-bound, graph updated, painted (median of 5)",
        f"≤ {TARGET10_SWITCH_MS:,.0f} ms",
        [cell(r["switch_ms"], lambda v: f"{ms(v)} ({verdict(v <= TARGET10_SWITCH_MS)})") for r in rows],
    )
    line("… through the window (`node_activated`)", "", [ms(r["switch_ui_ms"]) for r in rows])
    line("… until the whole graph is on screen again (a far switch)", "", [ms(r["switch_complete_ms"]) for r in rows])
    line(
        f"longest event-loop stall, streaming {rows[0]['tokens']:,} deltas + compacting (5 ms heartbeat)",
        f"≤ {TARGET10_STALL_MS:,.0f} ms",
        [cell(r["stall_ms"], lambda v: f"{ms(v)} ({verdict(v <= TARGET10_STALL_MS)})") for r in rows],
    )
    line("… p99 heartbeat gap", "", [ms(r["stall_p99_ms"]) for r in rows])
    line(
        "peak RSS, `arbor FILE` until the whole graph is painted",
        "≤ 0.5 GB",
        [cell(r["medians"]["peak_rss"], lambda v: f"{_fmt_bytes(v)} ({verdict(v <= TARGET10_RSS)})") for r in rows],
    )
    line("peak RSS, pi (node, open + context)", "", [_fmt_bytes(r["medians"]["pi_rss"]) for r in rows])
    line("peak RSS, streaming + compacting process", "", [_fmt_bytes(r["stream_rss"]) for r in rows])
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--markdown":
        roots = [ROOT] + [Path(a).resolve() for a in argv[1:]]
        results = markdown_figures(roots)
        print("| input | " + " | ".join(str(r) for r in roots) + " |")
        print("|---|" + "---:|" * len(roots))
        for name in MARKDOWN_CASES:
            cells = [results[str(r)][name] for r in roots]
            print(f"| {name} | " + " | ".join("> 120,000 ms" if c is None else f"{c:,.0f} ms" for c in cells) + " |")
        return 0
    if argv and argv[0] == "--child":
        return _child_main(*argv[1:5])
    if argv and argv[0] == "--entries":  # --entries N [N ...] [--runs R] [--tokens T]: issue 10 item 8
        rest = argv[1:]
        options = {"--runs": 3, "--tokens": FULL_TOKENS}
        for flag in list(options):
            if flag in rest:
                at = rest.index(flag)
                options[flag] = int(rest[at + 1])
                rest = rest[:at] + rest[at + 2 :]
        found = at_sizes([int(a.replace("_", "")) for a in rest] or [10_000, 100_000], options["--runs"], options["--tokens"])
        print(json.dumps(found, default=str), file=sys.stderr)
        print(at_sizes_markdown(found))
        return 0
    if argv and argv[0] == "--freeze":  # --freeze N [N ...] [--runs R] [--before CHECKOUT]: issue 28 item 1
        rest = argv[1:]
        runs, before = 3, None
        if "--runs" in rest:
            at = rest.index("--runs")
            runs = int(rest[at + 1])
            rest = rest[:at] + rest[at + 2 :]
        if "--before" in rest:
            at = rest.index("--before")
            before = rest[at + 1]
            rest = rest[:at] + rest[at + 2 :]
        found = freeze([int(a.replace("_", "")) for a in rest] or [20_000, 100_000], runs, before)
        print(json.dumps(found, default=str), file=sys.stderr)
        print(freeze_markdown(found))
        return 0
    if argv and argv[0] == "--vs-pi":  # --vs-pi N [N ...] [--runs R]: arbor vs pi wall times (issue 10)
        rest = argv[1:]
        runs = 3
        if "--runs" in rest:
            at = rest.index("--runs")
            runs = int(rest[at + 1])
            rest = rest[:at] + rest[at + 2 :]
        rows = vs_pi([int(a.replace("_", "")) for a in rest] or [10_000, 100_000], runs)
        print(json.dumps(rows, default=str), file=sys.stderr)
        print(vs_pi_markdown(rows))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help=f"{QUICK_ENTRIES:,} entries, {QUICK_TOKENS} deltas, 2 runs"
    )
    parser.add_argument("--runs", type=int, help="fresh-process opens per variant (default 5)")
    parser.add_argument("--tokens", type=int, help=f"streamed deltas (default {FULL_TOKENS:,})")
    parser.add_argument(
        "--profile", choices=sorted(CHILDREN), help="run one child under cProfile and the span tracer"
    )
    parser.add_argument(
        "--anthropic", action="store_true", help="with --profile open: the Anthropic-provider variant"
    )
    parser.add_argument("--size", type=int, help="with --profile: the session's entries (e.g. 100000)")
    parser.add_argument("--json", metavar="FILE", help="write the rows to FILE")
    args = parser.parse_args(argv)
    if args.profile:
        profile(args.profile, args.quick, args.tokens, args.anthropic, entries=args.size)
        return 0
    rows = run(quick=args.quick, runs=args.runs, tokens=args.tokens)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1, default=str), encoding="utf-8")
    print(details(rows), file=sys.stderr)
    print(f"\n## {TITLE}\n")
    print(markdown(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
