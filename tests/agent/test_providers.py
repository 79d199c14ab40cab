"""Which model: offline without a key; Anthropic with one, its SDK loaded off the startup path."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_app.agent.providers import make_provider
from desktop_app.llm.deferred import DeferredProvider
from desktop_app.llm.offline import OfflineProvider
from desktop_app.llm.protocol import LLMRequest, complete
from desktop_app.settings import Settings
from tests.fakes import FakeAnthropicServer
from tests.fakes import anthropic_server as fa

ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-ant-api03-PROVIDERTEST-0123456789abcdef"


def test_no_key_means_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setattr("desktop_app.agent.providers.get_api_key", lambda: None)
    assert isinstance(make_provider(Settings()), OfflineProvider)


def test_key_gives_anthropic_without_importing_the_sdk() -> None:
    code = (
        "import sys\nfrom desktop_app.agent.providers import make_provider\nfrom desktop_app.settings import Settings\n"
        "p = make_provider(Settings())\nprint(type(p).__name__, p.model.id, 'anthropic' in sys.modules)"
    )
    env = {**os.environ, "ANTHROPIC_API_KEY": KEY}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["DeferredProvider", "claude-sonnet-4-5", "False"], out.stderr


@pytest.mark.asyncio
async def test_deferred_provider_warms_up_and_streams(fake_anthropic: FakeAnthropicServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    provider = make_provider(Settings(), base_url=fake_anthropic.base_url)
    assert isinstance(provider, DeferredProvider) and not provider.loaded
    await provider.warm_up()
    assert provider.loaded and not fake_anthropic.requests  # warm-up never touches the network
    fake_anthropic.enqueue(fa.text("hi there"))
    reply = await complete(provider, LLMRequest(None, [{"role": "user", "content": "x", "timestamp": 1}], max_tokens=50))
    assert reply["content"][0]["text"] == "hi there"
    await provider.aclose()


def test_unusable_key_raises_for_ask_and_falls_back_offline_for_the_window(monkeypatch: pytest.MonkeyPatch) -> None:
    from desktop_app.llm.keys import InvalidApiKeyError

    bad = "sk-ant-SECR\nETPROBE123"
    monkeypatch.setenv("ANTHROPIC_API_KEY", bad)
    with pytest.raises(InvalidApiKeyError):
        make_provider(Settings())
    settings = Settings()
    provider = make_provider(settings, offline_on_invalid_key=True)
    assert isinstance(provider, OfflineProvider)
    assert len(settings.warnings) == 1 and "offline model" in settings.warnings[0]
    assert "SECR" not in settings.warnings[0] and "ETPROBE" not in settings.warnings[0]
