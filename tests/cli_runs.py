"""Running ``arbor`` commands in the test process, captured as a child's would be.

A fresh interpreter per call costs ~0.4 s of imports; tests that need a real process (its own
recursion limit, signals, the entry point itself) still start one.
"""

from __future__ import annotations

import contextlib
import io
import subprocess

from desktop_app.cli import main


def arbor_in_process(*args: str) -> subprocess.CompletedProcess[str]:
    """``arbor ARGS`` through ``cli.main`` (what the entry point calls): stdout, stderr and the exit
    code as ``subprocess.run(..., capture_output=True, text=True)`` gives them."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse refusing an option
            code = exc.code if isinstance(exc.code, int) else 2
    return subprocess.CompletedProcess(["arbor", *args], code, out.getvalue(), err.getvalue())
