"""Why the minimap writes bytes (issue 10 item 8): Qt calls on the UI thread beside a busy Python thread.

Every PySide call lets go of the GIL; while another thread runs Python (a compaction preparing, the
whole graph's build) the UI thread then waits to get it back after each call. This draws 500 minimap
dots four ways, alone and beside a thread that only runs Python, with the switch interval the app's
loop sets (``ui/event_loop.py``), and prints medians and maxima of 20 runs each:

* ``fillRect``: one ``QPainter.fillRect`` per dot (the minimap before);
* ``QRectF`` only: just making the 500 rectangles;
* ``drawRects``: one call for all 500 (the rectangles still made one by one);
* bytes: the dots written into a ``bytearray`` (the minimap now), no Qt call.

``QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/bench_gil_qt.py``
"""

from __future__ import annotations

import random
import statistics
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

DOTS = 500
RUNS = 20


def main() -> None:
    from PySide6.QtCore import QRectF, Qt
    from PySide6.QtGui import QColor, QGuiApplication, QImage, QPainter

    from desktop_app.ui.event_loop import GIL_SWITCH_INTERVAL

    sys.setswitchinterval(GIL_SWITCH_INTERVAL)
    app = QGuiApplication.instance() or QGuiApplication([])  # noqa: F841 - Qt needs it for painting
    image = QImage(200, 140, QImage.Format.Format_ARGB32_Premultiplied)
    rng = random.Random(0)
    dots = [(rng.random() * 198, rng.random() * 138) for _ in range(DOTS)]
    color = QColor("#1971c2")
    pixel = bytes((0x19, 0x71, 0xC2, 0xFF))

    def fill_rects() -> None:
        painter = QPainter(image)
        for x, y in dots:
            painter.fillRect(QRectF(x, y, 2, 2), color)
        painter.end()

    def rects_only() -> None:
        [QRectF(x, y, 2, 2) for x, y in dots]

    def draw_rects() -> None:
        rects = [QRectF(x, y, 2, 2) for x, y in dots]
        painter = QPainter(image)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color)
        painter.drawRects(rects)
        painter.end()

    def as_bytes() -> None:
        buffer = bytearray(200 * 140 * 4)
        for x, y in dots:
            for row in (int(y), int(y) + 1):
                at = (row * 200 + int(x)) * 4
                buffer[at : at + 8] = pixel * 2

    ways: list[tuple[str, Callable[[], None]]] = [
        ("fillRect per dot", fill_rects),
        ("QRectF only", rects_only),
        ("drawRects, one call", draw_rects),
        ("bytes, no Qt call", as_bytes),
    ]

    def measure(work: Callable[[], None]) -> tuple[float, float]:
        times = []
        for _ in range(RUNS):
            start = time.perf_counter()
            work()
            times.append((time.perf_counter() - start) * 1000)
        return statistics.median(times), max(times)

    stop = threading.Event()

    def busy() -> None:  # pure Python, as a compaction's preparation is
        total = 0
        while not stop.is_set():
            for i in range(1000):
                total += i

    results: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in ways}
    for name, work in ways:
        results[name].append(measure(work))
    thread = threading.Thread(target=busy, daemon=True)
    thread.start()
    time.sleep(0.05)
    try:
        for name, work in ways:
            results[name].append(measure(work))
    finally:
        stop.set()
        thread.join()

    print(f"{DOTS} minimap dots, median / max of {RUNS} (ms), switch interval {GIL_SWITCH_INTERVAL * 1000:g} ms")
    print("| way | alone | beside a busy Python thread |")
    print("|---|---:|---:|")
    for name, ((alone, alone_max), (busy_median, busy_max)) in results.items():
        print(f"| {name} | {alone:.2f} / {alone_max:.2f} | {busy_median:.2f} / {busy_max:.2f} |")


if __name__ == "__main__":
    main()
