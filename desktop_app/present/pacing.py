"""Long pure-Python work in slices of a few milliseconds, so the UI thread can run it between events.

Why not a worker thread: the GIL. A thread building a 100,000-entry session's whole graph held it
for seconds, and the UI thread waited for it after every Qt call, on a loaded machine up to ~70 ms
at a time (issue 28). Written as a generator that yields when its :class:`Pace` says the slice is
spent, the same code runs a slice per event-loop turn (:class:`~desktop_app.ui.graph.whole_graph.
WholeGraphBuild`) or all at once (:func:`finish` with :data:`UNPACED`): one implementation, so
both give the very same result.

Long loops ask ``if not i & CHECK and pace.due(): yield``: one clock reading per 64 items.
"""

from __future__ import annotations

import math
from collections.abc import Generator
from time import perf_counter
from typing import TypeVar

__all__ = ["CHECK", "UNPACED", "Pace", "Steps", "finish"]

T = TypeVar("T")

#: Work that gives the event loop back between slices and returns a ``T`` at the end.
Steps = Generator[None, None, T]

#: Loops read the clock when ``i & CHECK == 0``: every 64 items.
CHECK = 63


class Pace:
    """The deadline of the slice running now: :meth:`due` once ``budget`` seconds have passed since
    :meth:`begin`. ``budget`` ``None``: never due (the steps run in one go)."""

    __slots__ = ("budget", "deadline")

    def __init__(self, budget: float | None) -> None:
        self.budget = budget
        self.deadline = math.inf

    def begin(self) -> None:
        """A new slice starts now."""
        if self.budget is not None:
            self.deadline = perf_counter() + self.budget

    def due(self) -> bool:
        return perf_counter() >= self.deadline


#: Never due: :func:`finish` runs the steps without a break.
UNPACED = Pace(None)


def finish(steps: Steps[T]) -> T:
    """Run ``steps`` to the end here and return what they make."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]
