"""The fake Anthropic server for the agent tests, and clean shutdown of the providers they create."""

from collections.abc import AsyncIterator
from typing import Any

import pytest_asyncio

from tests.fakes import fake_anthropic  # noqa: F401  (re-exported fixture)

OPEN_PROVIDERS: list[Any] = []


@pytest_asyncio.fixture(autouse=True)
async def _close_providers() -> AsyncIterator[None]:
    """Close SDK clients on the test's own loop, before pytest-asyncio closes that loop."""
    yield
    while OPEN_PROVIDERS:
        provider = OPEN_PROVIDERS.pop()
        aclose = getattr(provider, "aclose", None)
        if aclose is not None:
            await aclose()
