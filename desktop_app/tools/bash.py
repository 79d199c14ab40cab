"""The ``bash`` tool: run a command in the working folder; tail of the output, pi's status lines.

pi's behaviour (pi-tools.md §2.4): ``[shell, "-c", command]`` in its own process group, stdin from
/dev/null, stdout and stderr merged in arrival order. The output is cut to its last 2000 lines /
50 KB; once it is cut, all of it is saved to ``<tmp>/pi-bash-<16 hex>.log`` (kept, as pi keeps it)
and named in the notice. A non-zero exit, a timeout or an abort is an error whose text is the
output followed by ``Command exited with code N`` / ``Command timed out after T seconds`` /
``Command aborted``; timeout and abort kill the whole process group with SIGKILL. A command killed
by a signal from elsewhere counts as success, as in pi.

A background job (``npm run dev &``) does not hold the call (DESIGN.md §6): the call
ends when the shell exits, with the output so far, and the job goes on running as in a terminal, its
later output read and dropped (:mod:`.output_pipe`). Stop kills the command's process group; a job
that left the group with ``setsid`` is a daemon by its own choice and is left running, as a terminal
would, but the call returns at once all the same.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import secrets
import shutil
import signal
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import IO, Any

from desktop_app.session.jsjson import js_number

from .context import ToolContext, ToolUpdate
from .display import first_arg, one_line
from .output_pipe import OutputPipe
from .paths import missing_cwd_message
from .results import ToolError, ToolOutput
from .schema import object_schema, prop
from .spec import CallView, CardText, ToolSpec
from .truncate import DEFAULT_MAX_BYTES, Truncation, format_size, truncate_tail, utf8_len

__all__ = ["BASH", "BashApproval", "execute_bash", "choose_shell", "BashOutput", "ABORTED_STATUS"]

ABORTED_STATUS = "Command aborted"
MISSING_CWD_LINE = "Cannot execute bash commands."
UPDATE_INTERVAL = 0.1
WINDOW_BYTES = 2 * DEFAULT_MAX_BYTES
"""Decoded output kept in memory; enough for the 50 KB tail cut, however long the command talks."""


def choose_shell(shell_path: str | None) -> str:
    """pi's order: the ``shellPath`` setting, /bin/bash, ``bash`` on PATH, ``sh``."""
    if shell_path:
        if not os.path.exists(shell_path):
            raise ToolError(f"Custom shell path not found: {shell_path}")
        return shell_path
    if os.path.exists("/bin/bash"):
        return "/bin/bash"
    return shutil.which("bash") or "sh"


class BashOutput:
    """Collects the merged output: a rolling decoded tail, whole-stream counts, the spill file."""

    def __init__(self, temp_dir: str | None) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._window: list[str] = []
        self._window_bytes = 0
        self._raw: list[bytes] = []
        self._raw_bytes = 0
        self._file: IO[bytes] | None = None
        self._temp_dir = temp_dir or tempfile.gettempdir()
        self.path: str | None = None
        self.total_bytes = 0
        self.newlines = 0
        self.last_line_bytes = 0

    def _spill(self) -> None:
        self.path = os.path.join(self._temp_dir, f"pi-bash-{secrets.token_hex(8)}.log")
        self._file = open(self.path, "wb")  # noqa: SIM115  (kept open while the command runs)
        for chunk in self._raw:
            self._file.write(chunk)
        self._raw = []

    def _add_text(self, text: str) -> None:
        if not text:
            return
        self._window.append(text)
        size = utf8_len(text)
        self._window_bytes += size
        self.total_bytes += size
        self.newlines += text.count("\n")
        last = text.rfind("\n")
        self.last_line_bytes = (self.last_line_bytes + size) if last < 0 else utf8_len(text[last + 1 :])
        while len(self._window) > 1 and self._window_bytes - utf8_len(self._window[0]) >= WINDOW_BYTES:
            self._window_bytes -= utf8_len(self._window.pop(0))

    def add(self, chunk: bytes) -> None:
        if self._file is not None:
            self._file.write(chunk)
        else:
            self._raw.append(chunk)
            self._raw_bytes += len(chunk)
            if self._raw_bytes > DEFAULT_MAX_BYTES:
                self._spill()
        self._add_text(self._decoder.decode(chunk))

    def finish(self) -> None:
        self._add_text(self._decoder.decode(b"", final=True))

    def tail(self) -> Truncation:
        """The tail cut over the whole stream (counts are the stream's, not the window's)."""
        cut = truncate_tail("".join(self._window))
        return replace(cut, total_lines=self.newlines + 1, total_bytes=self.total_bytes)

    def close(self, keep_file: bool) -> str | None:
        """Close the spill file, writing it now if the output was cut but never grew past 50 KB."""
        if self._file is None and keep_file:
            self._spill()
        if self._file is not None:
            self._file.close()
            self._file = None
        return self.path


def _text(output: BashOutput) -> tuple[str, Truncation, str | None]:
    """The output text with pi's notice, the cut, and the full-output file when cut."""
    cut = output.tail()
    path = output.close(keep_file=cut.truncated)
    text = cut.content
    if cut.truncated:
        end = cut.total_lines
        if cut.last_line_partial:
            text += (
                f"\n\n[Showing last {format_size(cut.output_bytes)} of line {end} "
                f"(line is {format_size(output.last_line_bytes)}). Full output: {path}]"
            )
        else:
            start = end - cut.output_lines + 1
            limit = f" ({format_size(DEFAULT_MAX_BYTES)} limit)" if cut.truncated_by == "bytes" else ""
            text += f"\n\n[Showing lines {start}-{end} of {end}{limit}. Full output: {path}]"
    return text, cut, path


def _kill_group(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


def _updater(ctx: ToolContext, call_id: str, output: BashOutput) -> Any:
    last = 0.0

    def emit() -> None:
        nonlocal last
        now = time.monotonic()
        if ctx.on_update is None or now - last < UPDATE_INTERVAL:
            return
        last = now
        ctx.on_update(ToolUpdate(call_id, "bash", output.tail().content))

    if ctx.on_update is not None:
        ctx.on_update(ToolUpdate(call_id, "bash", ""))
    return emit


def _command_line(args: dict[str, Any], ctx: ToolContext) -> tuple[str, str]:
    """The shell and what it runs (pi's ``shellCommandPrefix`` first), or pi's error before anything starts."""
    command = str(args["command"])
    if not os.path.isdir(ctx.cwd):
        raise ToolError(missing_cwd_message(ctx.cwd, "bash", MISSING_CWD_LINE))
    shell = choose_shell(ctx.shell_path)
    if ctx.shell_command_prefix:
        command = ctx.shell_command_prefix + "\n" + command
    if ctx.signal.aborted:
        raise ToolError(ABORTED_STATUS)
    return shell, command


async def _spawn(shell: str, command: str, ctx: ToolContext) -> tuple[asyncio.subprocess.Process, int]:
    """Start ``shell -c command`` in its own process group, stdout and stderr into one pipe; the
    process and the pipe's read end."""
    env = dict(os.environ)
    if ctx.extra_path:
        env["PATH"] = os.pathsep.join([*ctx.extra_path, env.get("PATH", "")])
    read_end, write_end = os.pipe()
    try:
        process = await asyncio.create_subprocess_exec(
            shell,
            "-c",
            command,
            cwd=ctx.cwd,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=write_end,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
    except BaseException:
        os.close(read_end)
        raise
    finally:
        os.close(write_end)  # the shell has its copy; ours would keep the pipe open forever
    return process, read_end


def _timeout_seconds(timeout: Any) -> float | None:
    """pi's ``timeout``: a positive number of seconds, anything else none."""
    return float(timeout) if isinstance(timeout, (int, float)) and timeout > 0 else None


async def _wait_for_exit(process: asyncio.subprocess.Process, ctx: ToolContext, seconds: float | None) -> str | None:
    """Wait for the shell's exit, the abort signal or the timeout; pi's status line for a failed run.

    The shell's exit ends the call, not the pipe's EOF: a background job may hold the pipe for hours.
    """
    exited = asyncio.ensure_future(process.wait())
    stop = asyncio.ensure_future(ctx.signal.wait())
    waiters: set[asyncio.Future[Any]] = {exited, stop}
    timer = asyncio.ensure_future(asyncio.sleep(seconds)) if seconds is not None else None
    if timer is not None:
        waiters.add(timer)
    try:
        done, _ = await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        if exited not in done:
            _kill_group(process)
            await exited  # prompt: the shell was in the killed group and no pipe of asyncio's waits
            return ABORTED_STATUS if stop in done else f"Command timed out after {js_number(seconds or 0)} seconds"
        if process.returncode is not None and process.returncode > 0:
            return f"Command exited with code {process.returncode}"
        return None
    finally:
        for waiter in (stop, timer):
            if waiter is not None:
                waiter.cancel()


def _result(output: BashOutput, status: str | None) -> ToolOutput:
    """The tail with pi's notice; a failed run is an error whose text ends with its status line."""
    text, cut, path = _text(output)
    if status is not None:
        raise ToolError(f"{text}\n\n{status}" if text else status)
    if not text:
        return ToolOutput.text("(no output)")
    if cut.truncated:
        return ToolOutput.text(text, {"truncation": cut.to_details(), "fullOutputPath": path})
    return ToolOutput.text(text)


async def execute_bash(args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
    shell, command = _command_line(args, ctx)
    process, read_end = await _spawn(shell, command, ctx)
    output = BashOutput(ctx.temp_dir)
    emit = _updater(ctx, ctx.tool_call_id, output)

    def on_data(chunk: bytes) -> None:
        output.add(chunk)
        emit()

    pipe = OutputPipe(read_end, on_data)
    try:
        status = await _wait_for_exit(process, ctx, _timeout_seconds(args.get("timeout")))
        pipe.read_available()
    except asyncio.CancelledError:
        _kill_group(process)
        output.close(keep_file=False)
        raise
    finally:
        pipe.detach()  # a job left running (``server &``, or setsid'd out of the group) keeps its pipe
    output.finish()
    return _result(output, status)


@dataclass(frozen=True)
class BashApproval:
    """A command waiting for the user: what runs, where, for how long at most."""

    tool_call_id: str
    command: str
    cwd: str
    timeout: float | None
    tool_name: str = field(default="bash", init=False)

    def card(self) -> CardText:
        """The command (highlighted as shell), the folder and the timeout."""
        facts = (f"in {self.cwd}",) + ((f"timeout {self.timeout:g} s",) if self.timeout else ())
        return CardText("Run this command?", facts, self.command, "bash")


def describe_bash(call_id: str, args: dict[str, Any], ctx: ToolContext) -> BashApproval:
    """The card for a command (nothing runs)."""
    timeout = args.get("timeout")
    return BashApproval(
        call_id,
        str(args.get("command", "")),
        ctx.cwd,
        float(timeout) if isinstance(timeout, (int, float)) and not isinstance(timeout, bool) else None,
    )


def format_bash_call(args: Mapping[str, Any]) -> str:
    """``[bash: <first 50 characters on one line>...]``."""
    raw = first_arg(args, "command")
    return f"[bash: {one_line(raw)[:50]}{'...' if len(raw) > 50 else ''}]"


def _bash_view(args: dict[str, Any]) -> CallView | None:
    """The command, highlighted as shell."""
    command = args.get("command")
    return CallView(command, "bash") if isinstance(command, str) else None


def _bash_command(text: str) -> dict[str, Any] | None:
    """``bash <command>``: everything after the name, on any number of lines."""
    command = text.strip()
    return {"command": command} if command else None


BASH = ToolSpec(
    name="bash",
    description=(
        "Execute a bash command in the current working directory. Returns stdout and stderr. Output is "
        "truncated to last 2000 lines or 50KB (whichever is hit first). If truncated, full output is saved "
        "to a temp file. Optionally provide a timeout in seconds."
    ),
    parameters=object_schema(
        ["command"],
        {
            "command": prop("string", "Bash command to execute"),
            "timeout": prop("number", "Timeout in seconds (optional, no default timeout)"),
        },
    ),
    execute=execute_bash,
    snippet="Execute bash commands (ls, grep, find, etc.)",
    main_argument="command",
    format_call=format_bash_call,
    describe=describe_bash,
    handles_abort=True,
    aborted_text=ABORTED_STATUS,
    missing_cwd_line=MISSING_CWD_LINE,
    call_view=_bash_view,
    parse_command=_bash_command,
)
