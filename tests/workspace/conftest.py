"""The fake Anthropic server for the checkpoint flows."""

from tests.fakes import fake_anthropic  # noqa: F401  (re-exported fixture)
