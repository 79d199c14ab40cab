"""A provider whose SDK is loaded off the startup path.

Importing the ``anthropic`` SDK costs 1.4–1.9 s and ~80 MB (measured in ``benchmarks/bench_gui.py``):
far too much to pay before the window appears. :class:`DeferredProvider` knows its model from the
catalog (no SDK needed) and builds the real provider on first use, or earlier in :meth:`warm_up`,
which the app runs once the window is on screen (the import itself in a worker thread).
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import AsyncGenerator, Callable
from typing import Any

from .protocol import LLMRequest, ModelInfo, Provider, StreamEvent


class DeferredProvider(Provider):
    """Stands in for a provider made by ``factory`` (imported from ``module``) until it is needed."""

    def __init__(self, module: str, factory: Callable[[], Provider], model: ModelInfo) -> None:
        self._module = module
        self._factory = factory
        self._model = model
        self._inner: Provider | None = None

    @property
    def model(self) -> ModelInfo:
        return self._model

    @property
    def loaded(self) -> bool:
        return self._inner is not None

    def inner(self) -> Provider:
        if self._inner is None:
            self._inner = self._factory()
        return self._inner

    def stream(self, request: LLMRequest) -> AsyncGenerator[StreamEvent, None]:
        return self.inner().stream(request)

    def __getattr__(self, name: str) -> Any:  # with_model, last_error, base_url, ...
        return getattr(self.inner(), name)

    async def warm_up(self) -> None:
        """Import the SDK in a worker thread, then warm the real provider on this loop."""
        await asyncio.to_thread(importlib.import_module, self._module)
        await self.inner().warm_up()

    async def aclose(self) -> None:
        if self._inner is not None:
            await self._inner.aclose()
