"""``arbor`` in a real child process that starts warm: forked from a server that imported it once.

A fresh interpreter spends ~2.5 s of CPU importing the anthropic SDK (≈1,500 pydantic models)
before ``arbor ask`` reads its first argument; a suite that starts ten such children pays that ten
times over (issue 23). Here a ``multiprocessing`` fork server, started once per test process,
imports the CLI and the SDK; each child is forked from it: a real process with its own pid, signal
handling, working folder, environment, stdout and stderr (files, or a descriptor such as a terminal) and exit
code, that runs ``cli.main`` exactly as ``python -m desktop_app`` does. What it does not repeat is
the interpreter's start-up: tests of that (imports, the entry point, the recursion limit) still
start ``python -m desktop_app``.

:class:`ArborProcess` answers as much of :class:`subprocess.Popen` as the tests use.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from multiprocessing import reduction
from pathlib import Path
from typing import Any

__all__ = ["ArborProcess", "run_arbor", "start_arbor"]

#: What the fork server imports once: the CLI, the ``ask`` command, the SDK it streams through and
#: the keyring it looks the key up in (with its backends: ~0.2 s more per child otherwise).
PRELOAD = [
    "desktop_app.cli",
    "desktop_app.agent.ask",
    "desktop_app.llm.anthropic",
    "anthropic",
    "importlib_metadata",
    "keyring",
    "keyring.backends.chainer",
    "keyring.backends.fail",
    "keyring.backends.SecretService",
    "keyring.backends.kwallet",
    "keyring.backends.libsecret",
]

_context = multiprocessing.get_context("forkserver")
_context.set_forkserver_preload(PRELOAD)


class _PassedFd:
    """A descriptor of this process handed to the child (sent over the fork server's socket)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def __reduce__(self) -> tuple[object, tuple[object]]:
        return (_received_fd, (reduction.DupFd(self.fd),))


def _received_fd(duplicate: Any) -> int:
    return int(duplicate.detach())


def _reopen(fd: int, target: str | int, *, read: bool = False) -> None:
    if isinstance(target, int):  # a descriptor the parent passed (a terminal, say)
        opened = target
    else:
        flags = os.O_RDONLY if read else os.O_WRONLY | os.O_CREAT | os.O_TRUNC
        opened = os.open(target, flags | os.O_NOCTTY, 0o600)
    if opened != fd:
        os.dup2(opened, fd)
        os.close(opened)


def _child(args: list[str], cwd: str, env: dict[str, str], stdin: str, stdout: str | int, stderr: str) -> None:
    """The forked child: the folder, environment and standard streams a ``Popen`` would give it,
    then ``arbor ARGS``; it ends as the interpreter would (exit functions run, streams flushed)."""
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    _reopen(0, stdin, read=True)
    _reopen(1, stdout)
    _reopen(2, stderr)
    sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115 - the process's own stream
    sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", buffering=1, closefd=False)  # noqa: SIM115
    sys.argv = ["arbor", *args]
    for number in (signal.SIGTERM, signal.SIGPIPE):
        signal.signal(number, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from desktop_app.cli import main

    code: int
    try:
        code = main(list(args))
    except SystemExit as exc:  # argparse refusing an option, or sys.exit inside a command
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except KeyboardInterrupt:
        code = 130
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(code)


def _read(path: str) -> str:
    """What the child wrote there (nothing if it ended before opening its streams)."""
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return ""


class ArborProcess:
    """A started ``arbor`` child: ``pid``, ``poll``, ``wait``, ``send_signal``, ``kill`` and
    ``communicate`` as :class:`subprocess.Popen` has them (stdout and stderr as text)."""

    def __init__(self, args: Sequence[str], cwd: str | Path, env: Mapping[str, str], stdout: int | None) -> None:
        self.args = ["arbor", *args]
        self._folder = tempfile.TemporaryDirectory(prefix="arbor-child-")
        self._out = os.path.join(self._folder.name, "stdout")
        self._err = os.path.join(self._folder.name, "stderr")
        self._captured = stdout is None
        out: object = self._out if stdout is None else _PassedFd(stdout)
        self._process = _context.Process(
            target=_child, args=(list(args), str(cwd), dict(env), os.devnull, out, self._err), daemon=True
        )
        self._process.start()
        self.returncode: int | None = None

    @property
    def pid(self) -> int:
        pid = self._process.pid
        assert pid is not None
        return pid

    def poll(self) -> int | None:
        if self.returncode is None:
            self.returncode = self._process.exitcode
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        self._process.join(timeout)
        code = self.poll()
        if code is None:
            raise subprocess.TimeoutExpired(self.args, timeout or 0)
        return code

    def send_signal(self, number: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, number)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def communicate(self, timeout: float | None = None) -> tuple[str, str]:
        """Wait for the end; what it wrote to stdout (``""`` when it went elsewhere) and stderr."""
        self.wait(timeout)
        out = _read(self._out) if self._captured else ""
        err = _read(self._err)
        self._folder.cleanup()
        return out, err


def start_arbor(
    args: Sequence[str], *, cwd: str | Path, env: Mapping[str, str], stdout: int | None = None
) -> ArborProcess:
    """``arbor ARGS`` started in ``cwd`` with exactly ``env``; stdout captured, or the descriptor
    ``stdout`` of this process (a terminal, say) given to the child; stdin is ``/dev/null``."""
    return ArborProcess(args, cwd, env, stdout)


def run_arbor(
    args: Sequence[str], *, cwd: str | Path, env: Mapping[str, str], timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """``arbor ARGS`` to its end, as ``subprocess.run(..., capture_output=True, text=True)`` gives it."""
    process = start_arbor(args, cwd=cwd, env=env)
    try:
        out, err = process.communicate(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)
        raise
    code = process.returncode
    assert code is not None
    return subprocess.CompletedProcess(process.args, code, out, err)
