"""The ``fake_anthropic`` pytest fixture: a started :class:`FakeAnthropicServer`, stopped afterwards.

Kept apart from the server module so non-pytest code (a smoke script, ``arbor ask --base-url``) can use
the server without importing pytest. Use it from a conftest with
``from tests.fakes import fake_anthropic  # noqa: F401``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .anthropic_server import FakeAnthropicServer


@pytest.fixture
def fake_anthropic() -> Iterator[FakeAnthropicServer]:
    server = FakeAnthropicServer().start()
    try:
        yield server
    finally:
        server.stop()
