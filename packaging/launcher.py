"""The bundle's entry point (PyInstaller runs this file as ``dist/arbor/arbor``).

Why a separate launcher: a frozen program has no Python interpreter to run ``present/dot_worker.py`` with,
so the Graphviz layout child is the bundle itself, started as ``arbor --dot-worker`` (the graph layer
asks for that through ``layout.WORKER_COMMAND``). Everything else is the ordinary command line.
"""

from __future__ import annotations

import os
import sys

DOT_WORKER_FLAG = "--dot-worker"


def main() -> int:
    if not any(os.environ.get(name) for name in ("LC_ALL", "LC_CTYPE", "LANG")):
        os.environ["LANG"] = "C.UTF-8"  # what Qt falls back to anyway, without its warning (env -i)
    if sys.argv[1:2] == [DOT_WORKER_FLAG]:
        from desktop_app.present import dot_worker

        return dot_worker.main()
    from desktop_app.cli import main as cli_main
    from desktop_app.present import layout

    layout.WORKER_COMMAND = [sys.executable, DOT_WORKER_FLAG]
    return cli_main()


if __name__ == "__main__":
    sys.exit(main())
