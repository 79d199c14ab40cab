"""An API key with a control character never reaches a file, stderr or a log (issue 13 item 5).

Such a key is refused where it comes in (environment, keyring, provider argument) with a message that
names the source, not the key; and redaction covers every escaped form a key can take in error text.
"""

from __future__ import annotations

import json
import os
import urllib.parse
from pathlib import Path

import pytest

from desktop_app.llm import keys
from desktop_app.llm.anthropic import AnthropicProvider
from desktop_app.llm.protocol import ErrorEvent, LLMRequest, user_text_message
from tests.arbor_process import run_arbor
from tests.fakes import FakeAnthropicServer
from tests.fakes import anthropic_server as fa

from .test_anthropic_provider import track

BAD_KEY = "sk-ant-SECR\nETPROBE123"
ROOT = Path(__file__).resolve().parents[2]


def forms(key: str) -> list[str]:
    """The ways a key shows up in text: raw, JSON, repr (str and bytes), URL-encoded — and its tail."""
    return [
        key,
        json.dumps(key),
        repr(key),
        repr(key.encode()),
        urllib.parse.quote(key, safe=""),
        urllib.parse.quote_plus(key),
        "ETPROBE123",
    ]


@pytest.mark.parametrize("form", forms(BAD_KEY)[:-1])
def test_redact_covers_every_escaped_form(form: str) -> None:
    text = f"401 authentication_error: invalid x-api-key {form} (request failed)"
    redacted = keys.redact(text, BAD_KEY)
    assert "ETPROBE" not in redacted and keys.REDACTED in redacted


def test_redact_keeps_other_text_and_plain_keys_still_work() -> None:
    key = "sk-ant-api03-PLAIN-0123456789"
    assert keys.redact(f"key={key}; url=k%3D{urllib.parse.quote(key)}", key) == "key=[redacted]; url=k%3D[redacted]"
    assert keys.redact("nothing secret here", BAD_KEY) == "nothing secret here"


def test_a_key_with_a_control_character_is_refused_at_input() -> None:
    with pytest.raises(keys.InvalidApiKeyError, match="ANTHROPIC_API_KEY contains a control character") as info:
        keys.get_api_key({keys.ENV_VAR: BAD_KEY}, use_keyring=False)
    assert "ETPROBE" not in str(info.value)
    with pytest.raises(keys.InvalidApiKeyError):
        keys.store_api_key(BAD_KEY)
    assert keys.get_api_key({keys.ENV_VAR: "  sk-ant-ok-0123456789  "}, use_keyring=False) == "sk-ant-ok-0123456789"


@pytest.mark.asyncio
async def test_the_provider_never_sends_such_a_key(fake_anthropic: FakeAnthropicServer) -> None:
    fake_anthropic.enqueue(fa.text("should not be reached"))
    p = track(AnthropicProvider(BAD_KEY, base_url=fake_anthropic.base_url))
    events = [e async for e in p.stream(LLMRequest("sys", [user_text_message("hi")]))]
    await p.aclose()
    assert len(events) == 1 and isinstance(events[0], ErrorEvent)
    message = events[0].message
    assert message["stopReason"] == "error" and "control character" in message["errorMessage"]
    assert not any(f in json.dumps(message) for f in forms(BAD_KEY))
    assert fake_anthropic.requests == []


def test_arbor_ask_with_such_a_key_says_so_and_leaks_nothing(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer
) -> None:
    session = tmp_path / "s.jsonl"
    env = {**os.environ, "ANTHROPIC_API_KEY": BAD_KEY, "ARBOR_HOME": str(tmp_path / "home")}
    done = run_arbor(["ask", "--session", str(session), "--base-url", fake_anthropic.base_url, "Hello"],
                     cwd=ROOT, env=env)
    assert done.returncode == 1
    assert "control character" in done.stderr and "Traceback" not in done.stderr
    written = session.read_text(encoding="utf-8") if session.exists() else ""
    everything = done.stdout + done.stderr + written
    assert not any(f in everything for f in forms(BAD_KEY))
    assert fake_anthropic.requests == []
