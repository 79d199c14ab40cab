"""The bash tool: output, status lines, truncation with the full-output file, timeout and abort (§2.4)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop_app.tools import ToolContext, ToolUpdate, run_tool
from desktop_app.tools.approval import describe_approval
from desktop_app.tools.bash import BashApproval
from desktop_app.tools.output_pipe import draining_pipes, dropped_bytes
from tests.tools.conftest import Runner, tool_call


async def _wait_gone(pid: int) -> bool:
    """Poll until the process is gone (at most 5 s); a killed group disappears at once."""
    for _ in range(100):
        if _gone(pid):
            return True
        await asyncio.sleep(0.05)
    return _gone(pid)


def _gone(pid: int) -> bool:
    """True when the process no longer runs (absent, or a zombie nobody reaped yet)."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            return "State:\tZ" in handle.read()
    except FileNotFoundError:
        return True


@pytest.mark.asyncio
async def test_output_merges_streams_and_keeps_control_characters(project: Path, run: Runner) -> None:
    result = await run("bash", command="echo out; echo err >&2; printf '\\033[31mred\\r\\n'; pwd")
    assert not result.is_error and result.details is None
    assert result.text == f"out\nerr\n\x1b[31mred\r\n{project}\n"


@pytest.mark.asyncio
async def test_no_output_and_signal_death_are_success(run: Runner) -> None:
    assert (await run("bash", command="true")).text == "(no output)"
    killed = await run("bash", command="kill -9 $$")
    assert not killed.is_error and killed.text == "(no output)"


@pytest.mark.asyncio
async def test_exit_code_status_line(run: Runner) -> None:
    result = await run("bash", command="ls missing-dir")
    assert result.is_error and result.details == {}
    assert result.text == (
        "ls: cannot access 'missing-dir': No such file or directory\n\n\nCommand exited with code 2"
    )
    assert (await run("bash", command="exit 3")).text == "Command exited with code 3"
    assert (await run("bash", command="printf x; exit 1")).text == "x\n\nCommand exited with code 1"


@pytest.mark.asyncio
async def test_timeout_kills_and_reports(run: Runner) -> None:
    result = await run("bash", command="echo begun; sleep 30; echo never", timeout=0.5)
    assert result.is_error
    assert result.text == "begun\n\n\nCommand timed out after 0.5 seconds"
    quiet = await run("bash", command="sleep 30", timeout=1)
    assert quiet.text == "Command timed out after 1 seconds"


@pytest.mark.asyncio
async def test_abort_of_a_long_sleep_returns_with_pis_text_and_kills_the_group(project: Path) -> None:
    ctx = ToolContext(cwd=str(project))
    updates: list[ToolUpdate] = []
    ctx.on_update = updates.append
    pid_file = project / "pid"
    command = f"sleep 30 & echo $! > {pid_file}; echo started; wait; echo never"
    call = tool_call("bash", command=command)
    task = asyncio.create_task(run_tool(call, ctx))
    while not pid_file.exists() or not pid_file.read_text().strip():
        await asyncio.sleep(0.02)
    ctx.signal.abort()
    result = await task
    assert result.is_error and result.details == {}
    assert result.text == "started\n\n\nCommand aborted"
    assert result.to_message()["toolName"] == "bash"
    assert await _wait_gone(int(pid_file.read_text()))
    assert updates and updates[0] == ToolUpdate(call["id"], "bash", "")


@pytest.mark.asyncio
async def test_cancelling_the_task_also_kills_the_group(project: Path) -> None:
    ctx = ToolContext(cwd=str(project))
    pid_file = project / "pid"
    task = asyncio.create_task(run_tool(tool_call("bash", command=f"echo $$ > {pid_file}; sleep 30"), ctx))
    while not pid_file.exists() or not pid_file.read_text().strip():
        await asyncio.sleep(0.02)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await _wait_gone(int(pid_file.read_text()))


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


async def _read_pid(path: Path) -> int:
    while not path.exists() or not path.read_text().strip():
        await asyncio.sleep(0.01)
    return int(path.read_text())


@pytest.fixture
def jobs() -> Iterator[list[int]]:
    """Jobs a test's call left running on purpose; their groups are killed whatever the test's outcome."""
    pids: list[int] = []
    yield pids
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(os.getpgid(pid), signal.SIGKILL)


async def _end_job(pid: int, fds_before: int, draining_before: int) -> None:
    """Kill a job the call left running (its whole group) and wait until its pipe is closed here."""
    os.killpg(os.getpgid(pid), signal.SIGKILL)
    assert await _wait_gone(pid)
    for _ in range(100):
        if draining_pipes() == draining_before and _open_fds() == fds_before:
            break
        await asyncio.sleep(0.05)
    assert draining_pipes() == draining_before and _open_fds() == fds_before  # no fd left behind


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "job",
    ["sleep 30 &", "setsid sleep 30 &", "(sleep 0.2; echo later; touch alive; sleep 30) &"],
    ids=["background", "setsid", "writes-later"],
)
async def test_a_background_job_does_not_hold_the_call(project: Path, job: str, jobs: list[int]) -> None:
    """The call returns when the shell exits (DESIGN.md §6), not when the job lets go of the pipe."""
    fds_before, draining_before = _open_fds(), draining_pipes()
    ctx = ToolContext(cwd=str(project))
    started = time.monotonic()
    command = f"echo $$ > shell.pid; {job} echo $! > job.pid; echo bye"
    result = await asyncio.wait_for(run_tool(tool_call("bash", command=command), ctx), 5)
    assert time.monotonic() - started < 2
    assert not result.is_error and result.text == "bye\n"
    assert not os.path.exists(f"/proc/{int((project / 'shell.pid').read_text())}")  # the shell was reaped
    job_pid = await _read_pid(project / "job.pid")
    jobs.append(job_pid)
    assert not _gone(job_pid)  # left running, as in a terminal
    if "later" in job:
        for _ in range(100):  # its later write did not kill it (no SIGPIPE from a closed pipe)
            if (project / "alive").exists():
                break
            await asyncio.sleep(0.02)
        assert (project / "alive").exists() and not _gone(job_pid)
    await _end_job(job_pid, fds_before, draining_before)


@pytest.mark.asyncio
async def test_a_job_that_never_stops_writing_neither_holds_the_call_nor_busies_the_loop(
    tmp_path: Path, project: Path, jobs: list[int]
) -> None:
    fds_before, draining_before = _open_fds(), draining_pipes()
    ctx = ToolContext(cwd=str(project), temp_dir=str(tmp_path))
    started = time.monotonic()
    result = await asyncio.wait_for(run_tool(tool_call("bash", command="yes & echo $! > job.pid; sleep 0.1"), ctx), 5)
    jobs.append(await _read_pid(project / "job.pid"))
    assert time.monotonic() - started < 2
    assert not result.is_error and set(result.text.split("\n\n[Showing")[0].split("\n")) <= {"y", ""}
    dropped = dropped_bytes()
    await asyncio.sleep(0.5)
    # its output is dropped a chunk per 50 ms (the full pipe slows it), not as fast as it comes (~1 GB/s)
    assert 0 < dropped_bytes() - dropped <= 12 * 65536
    assert draining_pipes() == draining_before + 1 and not _gone(jobs[0])
    await _end_job(jobs[0], fds_before, draining_before)


@pytest.mark.asyncio
async def test_abort_returns_even_when_a_setsid_job_holds_the_pipe(project: Path, jobs: list[int]) -> None:
    """Stop kills the command's group; a job that left it with setsid is a daemon and stays (as in a terminal)."""
    fds_before, draining_before = _open_fds(), draining_pipes()
    ctx = ToolContext(cwd=str(project))
    command = "setsid sleep 30 & echo $! > job.pid; echo started; echo $$ > shell.pid; sleep 30; echo never"
    task = asyncio.create_task(run_tool(tool_call("bash", command=command), ctx))
    job_pid = await _read_pid(project / "job.pid")
    jobs.append(job_pid)
    shell_pid = await _read_pid(project / "shell.pid")
    while os.getsid(job_pid) != job_pid:  # until setsid has run, the job is still in the shell's group
        await asyncio.sleep(0.01)
    ctx.signal.abort()
    result = await asyncio.wait_for(task, 5)
    assert result.is_error and result.text == "started\n\n\nCommand aborted"
    assert await _wait_gone(shell_pid)
    assert not _gone(job_pid)
    await _end_job(job_pid, fds_before, draining_before)


@pytest.mark.asyncio
async def test_line_truncation_keeps_the_tail_and_saves_everything(tmp_path: Path, project: Path) -> None:
    ctx = ToolContext(cwd=str(project), temp_dir=str(tmp_path))
    result = await run_tool(tool_call("bash", command="seq 1 2500"), ctx)
    assert not result.is_error
    match = re.fullmatch(
        r"502\n(?:.*\n)*2500\n\n\n\[Showing lines 502-2501 of 2501\. Full output: (.*/pi-bash-[0-9a-f]{16}\.log)\]",
        result.text,
    )
    assert match is not None, result.text[-200:]
    full = match.group(1)
    assert Path(full).read_text() == "".join(f"{i}\n" for i in range(1, 2501))
    assert result.details is not None and list(result.details) == ["truncation", "fullOutputPath"]
    assert result.details["fullOutputPath"] == full
    trunc = result.details["truncation"]
    assert (trunc["truncatedBy"], trunc["totalLines"], trunc["outputLines"]) == ("lines", 2501, 2000)


@pytest.mark.asyncio
async def test_byte_truncation_and_partial_last_line(tmp_path: Path, project: Path) -> None:
    ctx = ToolContext(cwd=str(project), temp_dir=str(tmp_path))
    wide = await run_tool(
        tool_call("bash", command="for i in $(seq 1 1000); do printf '%099d\\n' $i; done"), ctx
    )
    assert re.search(
        r"\n\n\[Showing lines 489-1001 of 1001 \(50\.0KB limit\)\. Full output: .*\.log\]$", wide.text
    )
    one_line = await run_tool(tool_call("bash", command="head -c 300000 /dev/zero | tr '\\0' a"), ctx)
    assert re.search(
        r"^a{51200}\n\n\[Showing last 50\.0KB of line 1 \(line is 293\.0KB\)\. Full output: .*\.log\]$",
        one_line.text,
    )
    assert one_line.details is not None and one_line.details["truncation"]["lastLinePartial"] is True
    assert one_line.details["truncation"]["totalBytes"] == 300000
    saved = Path(one_line.details["fullOutputPath"])
    assert saved.stat().st_size == 300000


@pytest.mark.asyncio
async def test_truncated_error_keeps_notice_but_loses_details(tmp_path: Path, project: Path) -> None:
    ctx = ToolContext(cwd=str(project), temp_dir=str(tmp_path))
    result = await run_tool(tool_call("bash", command="seq 1 2500; exit 4"), ctx)
    assert result.is_error and result.details == {}
    assert re.search(
        r"2500\n\n\n\[Showing lines 502-2501 of 2501\. Full output: .*\.log\]\n\nCommand exited with code 4$",
        result.text,
    )


@pytest.mark.asyncio
async def test_shell_settings_and_missing_folder(tmp_path: Path, project: Path) -> None:
    prefixed = ToolContext(cwd=str(project), shell_command_prefix="shopt -s expand_aliases; GREETING=hi")
    assert (await run_tool(tool_call("bash", command="echo $GREETING"), prefixed)).text == "hi\n"
    wrong_shell = ToolContext(cwd=str(project), shell_path="/nonexistent/shell")
    result = await run_tool(tool_call("bash", command="true"), wrong_shell)
    assert result.is_error and result.text == "Custom shell path not found: /nonexistent/shell"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "arbor-test-tool"
    tool.write_text("#!/bin/sh\necho from-extra-path\n")
    tool.chmod(0o755)
    extra = ToolContext(cwd=str(project), extra_path=(str(bin_dir),))
    assert (await run_tool(tool_call("bash", command="arbor-test-tool"), extra)).text == "from-extra-path\n"
    gone = ToolContext(cwd=str(tmp_path / "gone"))
    missing = await run_tool(tool_call("bash", command="true"), gone)
    assert (
        missing.text
        == f"Working directory does not exist: {tmp_path / 'gone'}\nCannot execute bash commands."
    )
    assert os.path.isdir(project)


def test_bash_card(project: Path) -> None:
    ctx = ToolContext(cwd=str(project))
    call = tool_call("bash", command="make test", timeout=60)
    assert describe_approval(call, ctx) == BashApproval(call["id"], "make test", str(project), 60.0)
