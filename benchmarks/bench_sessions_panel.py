"""Sessions panel benchmark (issue 11 item 1): listing 1,000 sessions never blocks the window.

Builds a sessions root of N realistic files (``bench_catalog.build_root``), opens the real
``SessionsPanel`` on it (offscreen) and, while a 5 ms heartbeat timer ticks on the UI thread,
measures:

* cold listing: from ``refresh()`` until the rows are on screen (every file read on the worker);
* warm listing (nothing changed) and a two-word search across all text;
* the longest gap between heartbeats during each, minus the 5 ms interval: how long the UI thread
  was busy at a stretch (the listing itself runs on a worker; building the rows does not).

    .venv/bin/python benchmarks/bench_sessions_panel.py [--files N] [--quick]

``run(quick=False)`` returns the rows for ``benchmarks/run_all.py``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TITLE = "Sessions panel: listing without blocking the window"
HEARTBEAT_MS = 5
TARGET_STALL_MS = 50.0


def _measure(panel: Any, query: str) -> dict[str, float]:
    from PySide6.QtCore import QCoreApplication, QTimer

    beats: list[float] = []
    timer = QTimer()
    timer.setInterval(HEARTBEAT_MS)
    timer.timeout.connect(lambda: beats.append(time.perf_counter()))
    timer.start()
    panel.search.blockSignals(True)
    panel.search.setText(query)
    panel.search.blockSignals(False)
    start = time.perf_counter()
    beats.append(start)
    panel.refresh()
    while panel.listing_pending:
        QCoreApplication.processEvents()
        time.sleep(0.001)
    QCoreApplication.processEvents()
    done = time.perf_counter()
    beats.append(done)
    timer.stop()
    gaps = [(b - a) * 1000 for a, b in zip(beats, beats[1:], strict=False)]
    return {"ms": (done - start) * 1000, "stall_ms": max(0.0, max(gaps) - HEARTBEAT_MS), "rows": len(panel.rows())}


def run(quick: bool = False, files: int | None = None) -> list[dict[str, Any]]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    count = files or (200 if quick else 1000)
    with tempfile.TemporaryDirectory(prefix="arbor-bench-panel-") as tmp:
        home = Path(tmp)
        os.environ["ARBOR_HOME"] = str(home / "arbor")
        os.environ["PI_CODING_AGENT_DIR"] = str(home / "pi")
        from benchmarks.bench_catalog import build_root

        build_root(home / "pi" / "sessions", count)
        from PySide6.QtWidgets import QApplication

        from desktop_app.agent import AgentSession
        from desktop_app.llm.offline import OfflineProvider
        from desktop_app.present.sessions import SessionSources
        from desktop_app.session import SessionManager
        from desktop_app.ui.sessions_panel import SessionsPanel

        app = QApplication.instance() or QApplication([])
        agent = AgentSession(SessionManager.in_memory(str(home)), OfflineProvider())
        panel = SessionsPanel(agent, SessionSources())
        panel.resize(320, 900)
        panel.show()
        while panel.listing_pending:  # the panel's own first listing: let it finish, then start cold
            app.processEvents()
            time.sleep(0.001)
        panel.sources = SessionSources()
        panel._lister.sources = panel.sources  # a fresh, empty cache: the next listing is cold
        rows = []
        for case, query in (("cold listing", ""), ("warm listing", ""), ("warm search, two words", "parser tokenizer")):
            result = _measure(panel, query)
            rows.append({
                "case": case, "files": count, "until rows on screen (ms)": round(result["ms"], 1),
                "longest UI stall (ms)": round(result["stall_ms"], 1), "rows": result["rows"],
                "target": f"stall ≤ {TARGET_STALL_MS:.0f} ms",
            })
        panel.shutdown()
        panel.close()
    return rows


def markdown(rows: list[dict[str, Any]]) -> str:
    keys = list(rows[0])
    out = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    out += ["| " + " | ".join(str(r[k]) for k in keys) + " |" for r in rows]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    print(markdown(run(args.quick, args.files)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
