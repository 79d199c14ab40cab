"""The fake Anthropic server for the agent tests."""

from tests.fakes import fake_anthropic  # noqa: F401  (re-exported fixture)
