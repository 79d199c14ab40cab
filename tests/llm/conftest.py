"""Fixtures for the LLM tests: the fake Anthropic server and a key that must never leak."""

from __future__ import annotations

import pytest

from tests.fakes import fake_anthropic  # noqa: F401  (re-exported fixture)

TEST_KEY = "sk-ant-api03-TESTKEY-0123456789abcdefSECRET"


@pytest.fixture
def api_key() -> str:
    """A fake key shaped like a real one, so redaction of key-shaped text is exercised too."""
    return TEST_KEY
