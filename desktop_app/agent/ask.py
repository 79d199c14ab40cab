"""``arbor ask``: one turn from the command line, through the same AgentSession the window uses.

For scripts and smoke tests: the reply goes to stdout, the turn is appended to the session file
(created when missing), errors go to stderr with exit code 1, and nothing ever prints a traceback.
On a terminal the reply streams as it comes; to a pipe or a file each reply is written once it stands,
so an attempt that fails and is retried (a dropped connection) never leaves its partial text in what a
script reads: stdout is the replies, notices such as the retry go to stderr.
SIGTERM stops the turn the way SIGINT does: the partial reply is saved as ``aborted`` (exit code 143).
A reply that cannot be saved in the session (disk full) is kept in a recovery file named on stderr.

Tools run in the session's folder. ``--yes`` allows every call; without it ``write``, ``edit`` and
``bash`` are denied (the model is told, and stderr says so for each call), reading tools still run.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from typing import Any, TextIO, assert_never

from desktop_app.llm.keys import InvalidApiKeyError
from desktop_app.llm.protocol import TextDelta
from desktop_app.session import SessionError, SessionFileError, SessionManager
from desktop_app.session.entries import message_text
from desktop_app.session.kinds import Role, role_of
from desktop_app.settings import Settings
from desktop_app.tools import ASK_DENIED_TEXT
from desktop_app.workspace.recorder import CHECKPOINT_NOTE_KEY

from .events import (
    AgentError,
    AgentEvent,
    BranchSummaryFinished,
    BranchSummaryStarted,
    CompactionFailed,
    CompactionFinished,
    CompactionProgress,
    CompactionStarted,
    MessageAppended,
    ReplyRecovered,
    RetryScheduled,
    SessionChanged,
    StreamUpdated,
    ToolCallsFinished,
    ToolCallsStarted,
    ToolResultAppended,
    ToolUpdated,
    TurnFinished,
    TurnStarted,
    WaitingForServer,
    WorkingFolderMissing,
)
from .providers import make_provider
from .session import AgentSession


def _describe_call(call: dict[str, Any]) -> str:
    arguments = call.get("arguments")
    shown = json.dumps(arguments, ensure_ascii=False) if arguments else ""
    return f"{call.get('name')} {shown[:200]}".rstrip()


class ReplyWriter:
    """What ``arbor ask`` writes to stdout: the text of the replies that stand, each once.

    ``live`` (a terminal) writes text as it streams; a failed attempt's partial text is then already
    on the screen, so the retry starts on a new line. Otherwise a reply's text is kept until the
    reply is saved: written then, or (a failed reply) held until it is either retried (dropped) or
    the last word of the turn (written at :meth:`finish`, as the partial of an aborted reply is).
    """

    def __init__(self, out: TextIO, live: bool) -> None:
        self._out = out
        self._live = live
        self._current: list[str] = []
        self._held = ""
        self._mid_line = False

    def _write(self, text: str) -> None:
        if text:
            self._out.write(text)
            self._out.flush()
            self._mid_line = not text.endswith("\n")

    def text(self, delta: str) -> None:
        self._held = ""  # a new reply is streaming: the failed one before it was retried
        if self._live:
            self._write(delta)
        else:
            self._current.append(delta)

    def saved(self, message: dict[str, Any]) -> None:
        """An assistant reply was appended to the session."""
        text, self._current = "".join(self._current), []
        if message.get("stopReason") == "error":
            self._held = text
        elif not self._live:
            self._write(text)

    def retried(self) -> None:
        """The failed reply is dropped; on a terminal the next attempt starts on its own line."""
        self._held = ""
        if self._live and self._mid_line:
            self._write("\n")

    def raw(self, text: str) -> None:
        """Separators between replies (written in order with them)."""
        self._write(text)

    def finish(self) -> None:
        """The turn is over: what is still kept (a failed or unsaved reply) is the last word."""
        self._write(self._held + "".join(self._current))
        self._held, self._current = "", []


class AskConsole:
    """What ``arbor ask`` shows of the agent's events: reply text through :class:`ReplyWriter`,
    notices (retries, compactions, tool calls and their failures) on stderr, and the errors that
    make the exit code 1 (:attr:`failed`)."""

    def __init__(self, replies: ReplyWriter) -> None:
        self.replies = replies
        self.failed: list[str] = []

    def show(self, event: AgentEvent) -> None:
        match event:
            case StreamUpdated(event=TextDelta(text=text)):
                self.replies.text(text)
            case MessageAppended(message=appended) if role_of(appended) is Role.ASSISTANT:
                self.replies.saved(appended)
            case RetryScheduled(attempt=attempt, delay_ms=delay_ms, error=error):
                self.replies.retried()
                _notice(f"\n[{error or 'the request failed'} — retrying in {delay_ms} ms (attempt {attempt})]")
            case CompactionStarted(reason=reason):
                _notice(f"\n[compacting ({reason})...]")
            case WaitingForServer(seconds=seconds):
                _notice(f"\n[waiting for the server... {seconds:.0f} s]")
            case ReplyRecovered(path=path, message=message):
                self.failed.append(f"{message}; the reply was saved to {path}")
            case AgentError(message=message):
                self.failed.append(message)
            case ToolCallsStarted(calls=calls):
                for call in calls:
                    _notice(f"\n[tool: {_describe_call(call)}]")
            case ToolCallsFinished(aborted=False):
                self.replies.raw("\n\n")  # the next reply starts on its own paragraph
            case ToolResultAppended(message=message):
                for text in _result_notices(message):
                    _notice(text)
            case WorkingFolderMissing(cwd=cwd):
                _notice(f"\n[the session's folder does not exist: {cwd}; tools will fail]")
            case (
                StreamUpdated()
                | MessageAppended()
                | ToolCallsFinished()
                | TurnStarted()
                | TurnFinished()
                | CompactionProgress()
                | CompactionFinished()
                | CompactionFailed()
                | BranchSummaryStarted()
                | BranchSummaryFinished()
                | SessionChanged()
                | ToolUpdated()
            ):
                pass  # the user's message, other deltas, progress: a script reads the replies and notices
            case _:
                assert_never(event)


def _notice(text: str) -> None:
    print(text, file=sys.stderr)


def _result_notices(message: dict[str, Any]) -> list[str]:
    """stderr lines for a tool result: a failed call, and a missing checkpoint (which, and why)."""
    notices = [_describe_failed_tool(message)] if message.get("isError") else []
    details = message.get("details")
    note = details.get(CHECKPOINT_NOTE_KEY) if isinstance(details, dict) else None
    if isinstance(note, str):
        notices.append(f"[{note}]")
    return notices


def _describe_failed_tool(message: dict[str, Any]) -> str:
    """``[denied: ...]`` for a call ``--yes`` did not allow, ``[<tool> failed: <first line>]`` otherwise."""
    result = message_text(message.get("content"))
    denied = result == ASK_DENIED_TEXT.format(tool=message.get("toolName"))
    label = "denied" if denied else f"{message.get('toolName')} failed"
    return f"[{label}: {result.splitlines()[0] if result else ''}]"


def _open_session(session: str | None, settings: Settings) -> SessionManager | None:
    """The session file named (``None``, said on stderr, when it can only be read), or a new one in
    the current folder."""
    if not session:
        return SessionManager.create(os.getcwd(), fsync=settings.fsync, profile=settings.profile)
    manager = SessionManager.open(session, fsync=settings.fsync, profile=settings.profile)
    if manager.read_only:
        print(f"arbor ask: {manager.report.error}", file=sys.stderr)
        return None
    return manager


async def _prompt(agent: AgentSession, text: str) -> tuple[dict[str, Any] | None, bool]:
    """The turn's reply, with SIGTERM stopping it the way SIGINT does; and whether SIGTERM came."""
    terminated = False

    def on_sigterm() -> None:
        nonlocal terminated
        terminated = True
        agent.abort()  # the partial reply is saved as aborted, as on SIGINT

    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, on_sigterm)
    try:
        reply = await agent.prompt(text)
    finally:
        loop.remove_signal_handler(signal.SIGTERM)
    return reply, terminated


def _exit_code(reply: dict[str, Any] | None, failed: list[str], terminated: bool) -> int:
    """143 after SIGTERM, 1 (the reason on stderr) when the turn failed or left no reply, else 0."""
    if terminated:
        print("arbor ask: terminated; the partial reply was kept", file=sys.stderr)
        return 143
    if failed or reply is None or reply.get("stopReason") in ("error", "aborted"):
        reason = failed[-1] if failed else (reply or {}).get("errorMessage", "no reply")
        print(f"arbor ask: {reason}", file=sys.stderr)
        return 1
    return 0


async def _ask(
    text: str, session: str | None, leaf: str | None, base_url: str | None, model: str | None, yes: bool
) -> int:
    settings = Settings.load()
    for warning in settings.warnings:
        print(f"arbor: {warning}", file=sys.stderr)
    manager = _open_session(session, settings)
    if manager is None:
        return 1
    if leaf:
        manager.branch(leaf)
    provider = make_provider(settings, base_url=base_url, model_id=model)
    agent = AgentSession(manager, provider, settings, approve_all=yes)
    console = AskConsole(ReplyWriter(sys.stdout, live=sys.stdout.isatty()))
    agent.subscribe(console.show)
    reply, terminated = await _prompt(agent, text)
    console.replies.finish()
    sys.stdout.write("\n")
    manager.close()
    print(f"[session: {manager.session_file}]", file=sys.stderr)
    return _exit_code(reply, console.failed, terminated)


def run(
    text: str,
    session: str | None,
    leaf: str | None,
    base_url: str | None,
    model: str | None,
    yes: bool = False,
) -> int:
    try:
        return asyncio.run(_ask(text, session, leaf, base_url, model, yes))
    except KeyboardInterrupt:
        return 130
    except (SessionError, SessionFileError, OSError, InvalidApiKeyError) as exc:
        print(f"arbor ask: {exc}", file=sys.stderr)
        return 1


__all__ = ["run"]
