"""Test doubles shared by the test suites: a fake Anthropic Messages API server and its fixture.

``from tests.fakes import fake_anthropic`` in a conftest makes the fixture available;
``from tests.fakes import anthropic_server as fa`` gives the scenario constructors (``fa.text()``,
``fa.overloaded()``, …) for ``fake_anthropic.enqueue(...)``.
"""

from . import anthropic_server
from .anthropic_server import FakeAnthropicServer, RecordedRequest, Usage
from .fixtures import fake_anthropic

__all__ = ["FakeAnthropicServer", "RecordedRequest", "Usage", "anthropic_server", "fake_anthropic"]
