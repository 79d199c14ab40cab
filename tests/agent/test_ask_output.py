"""``arbor ask`` as a script sees it (issue 23 items 1 and 5), through a real child process
(``tests/arbor_process.py``: forked warm) and the fake server.

A bash call that leaves a background job returns when the shell exits, and SIGTERM ends a call whose
job escaped the process group with setsid; stdout is exactly the final reply when an attempt was
dropped mid-stream and retried, with the notice on stderr.
"""

from __future__ import annotations

import io
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from desktop_app.agent.ask import ReplyWriter
from desktop_app.session import SessionManager
from tests.arbor_process import run_arbor, start_arbor
from tests.fakes import FakeAnthropicServer
from tests.fakes import anthropic_server as fa

from .test_agent_session import KEY, ROOT


def _env(home: Path) -> dict[str, str]:
    home.mkdir(parents=True, exist_ok=True)
    (home / "settings.json").write_text('{"retry": {"baseDelayMs": 1}}')
    return {**os.environ, "ANTHROPIC_API_KEY": KEY, "ARBOR_HOME": str(home), "PYTHONPATH": str(ROOT)}


def _ask_args(session: Path, base_url: str, *args: str) -> list[str]:
    return ["ask", "--session", str(session), "--base-url", base_url, *args]


def _messages(session: Path) -> list[dict[str, Any]]:
    return [e["message"] for e in SessionManager.open(session).get_entries() if e["type"] == "message"]


def _wait_for_file(path: Path, timeout: float = 20) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        time.sleep(0.02)
    raise AssertionError(f"{path} never appeared")


def _end_job(pid: int) -> None:
    """The test's job was left running on purpose (as in a terminal); end it and its group."""
    try:
        os.killpg(os.getpgid(pid), signal.SIGKILL)
    except ProcessLookupError:
        pass


def test_a_background_job_does_not_hold_arbor_ask(tmp_path: Path, fake_anthropic: FakeAnthropicServer) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    session = tmp_path / "bg.jsonl"
    command = "sleep 300 & echo $! > job.pid; echo bye"
    fake_anthropic.enqueue(fa.tool_use("bash", {"command": command}, tool_id="toolu_bg", preamble=None),
                           fa.text("The job runs."))
    started = time.monotonic()
    try:
        done = run_arbor(_ask_args(session, fake_anthropic.base_url, "--yes", "Start the job"),
                         cwd=folder, env=_env(tmp_path / "home"), timeout=30)
    finally:
        if (folder / "job.pid").exists():
            _end_job(int(_wait_for_file(folder / "job.pid")))
    assert time.monotonic() - started < 30
    assert done.returncode == 0, done.stderr
    assert done.stdout == "\n\nThe job runs.\n"
    messages = _messages(session)
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "toolResult", "assistant"]
    assert messages[3]["isError"] is False and messages[3]["content"] == [{"type": "text", "text": "bye\n"}]
    assert messages[4]["content"] == [{"type": "text", "text": "The job runs."}]


def test_sigterm_ends_a_bash_call_whose_job_left_with_setsid(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer
) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    session = tmp_path / "term.jsonl"
    command = "echo started; setsid sleep 300 & echo $! > job.pid; sleep 300"
    fake_anthropic.enqueue(fa.tool_use("bash", {"command": command}, tool_id="toolu_term", preamble=None))
    proc = start_arbor(_ask_args(session, fake_anthropic.base_url, "--yes", "Run it"), cwd=folder,
                       env=_env(tmp_path / "home"))
    job, alive = 0, False
    try:
        job = int(_wait_for_file(folder / "job.pid"))  # "started" is in the pipe; the shell sleeps
        while os.getsid(job) != job:  # until setsid has run, the job is still in the shell's group
            time.sleep(0.01)
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if job:
            alive = os.path.exists(f"/proc/{job}")
            _end_job(job)
    assert proc.returncode == 143, err
    assert alive  # the setsid'd daemon is not ours to kill (a terminal leaves it running too)
    messages = _messages(session)
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "toolResult", "assistant"]
    assert messages[3]["content"] == [{"type": "text", "text": "started\n\n\nCommand aborted"}]
    assert messages[4]["stopReason"] == "aborted"
    assert "Traceback" not in err


def test_stdout_is_only_the_final_reply_after_a_dropped_stream(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer
) -> None:
    fake_anthropic.enqueue(fa.drop_mid_stream("This answer will be cut"), fa.text("The whole answer."))
    session = tmp_path / "retry.jsonl"
    done = run_arbor(_ask_args(session, fake_anthropic.base_url, "Answer"), cwd=tmp_path,
                     env=_env(tmp_path / "home"))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "The whole answer.\n"
    assert "[Connection lost: " in done.stderr and " — retrying in 1 ms (attempt 1)]" in done.stderr
    assert "This answer" not in done.stderr
    messages = _messages(session)
    assert messages[-2]["stopReason"] == "error" and messages[-2]["content"][0]["text"].startswith("This answer")
    assert messages[-1]["content"] == [{"type": "text", "text": "The whole answer."}]


def _feed(writer: ReplyWriter, *steps: tuple[str, Any]) -> None:
    for kind, value in steps:
        if kind == "text":
            writer.text(value)
        elif kind == "saved":
            writer.saved({"role": "assistant", "stopReason": value})
        elif kind == "retried":
            writer.retried()
        else:
            writer.raw(value)
    writer.finish()


RETRIED_TURN = (("text", "Let me "), ("saved", "toolUse"), ("raw", "\n\n"), ("text", "Half"), ("saved", "error"),
                ("retried", None), ("text", "Whole"), ("saved", "stop"))


@pytest.mark.parametrize(
    ("live", "steps", "expected"),
    [
        (False, RETRIED_TURN, "Let me \n\nWhole"),
        (True, RETRIED_TURN, "Let me \n\nHalf\nWhole"),  # a terminal shows it as it came; the retry on its own line
        (False, (("text", "Par"), ("text", "tial"), ("saved", "aborted")), "Partial"),
        (False, (("text", "Cut"), ("saved", "error")), "Cut"),  # a failure that is not retried is the last word
        (False, (("text", "Cut"), ("saved", "error"), ("text", "Again"), ("saved", "stop")), "Again"),  # compacted
        (False, (("text", "Unsaved"),), "Unsaved"),  # kept in a recovery file, still printed
    ],
    ids=["pipe-retry", "terminal-retry", "aborted", "final-error", "retried-after-compaction", "recovered"],
)
def test_reply_writer(live: bool, steps: tuple[tuple[str, Any], ...], expected: str) -> None:
    out = io.StringIO()
    _feed(ReplyWriter(out, live=live), *steps)
    assert out.getvalue() == expected
