"""After ``warm_up`` the user's first real request imports nothing: every import then costs the
event loop a turn's worth of time in the window (PySide's import hook reads each module's source).
Run in a fresh interpreter, where nothing else has imported those modules first."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHILD = textwrap.dedent(
    """
    import asyncio, sys
    from tests.fakes import anthropic_server as fa
    from desktop_app.llm.anthropic import AnthropicProvider, warm_up
    from desktop_app.llm.catalog import DEFAULT_MODEL_ID
    from desktop_app.llm.protocol import LLMRequest

    async def main():
        server = fa.FakeAnthropicServer().start()
        try:
            provider = AnthropicProvider(api_key="sk-ant-warm-dummy", base_url=server.base_url, model_id=DEFAULT_MODEL_ID)
            await warm_up()
            await provider.prepare()
            before = set(sys.modules)
            server.enqueue(fa.text("hello there", chunk=4, delay=0))
            message = [{"role": "user", "content": [{"type": "text", "text": "hi"}], "timestamp": 1}]
            events = [event async for event in provider.stream(LLMRequest("system", message, max_tokens=100))]
            assert events, "no events streamed"
            print("NEW", sorted(set(sys.modules) - before))
        finally:
            server.stop()

    asyncio.run(main())
    """
)


def test_the_first_real_request_after_warm_up_imports_no_module() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "NEW []"
