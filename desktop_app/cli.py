"""Command line: ``arbor`` (the window), ``arbor FILE.jsonl``, ``arbor inspect``, ``arbor ask``,
``arbor screenshot``, ``arbor import``, ``arbor install-desktop-entry``."""

from __future__ import annotations

import argparse
import os
import stat
import sys

COMMANDS = ("inspect", "ask", "screenshot", "import", "install-desktop-entry")


def _version() -> str:
    """The installed package's version (the bundle carries the package metadata too)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("arbor")
    except PackageNotFoundError:
        return "unknown"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arbor",
        usage="arbor [FILE.jsonl] | arbor {inspect,ask,screenshot,import,install-desktop-entry} ...",
        description="See and steer a conversation with an LLM agent as the tree it is (pi session files, v3). "
        "Without a command, opens the window (with FILE.jsonl if given).",
    )
    parser.add_argument("--version", action="version", version=f"arbor {_version()}")
    sub = parser.add_subparsers(dest="command")
    inspect = sub.add_parser(
        "inspect",
        help="print the engine's answers for a session file as one JSON document (never writes the file)",
    )
    inspect.add_argument("file", help="a session .jsonl file")
    inspect.add_argument(
        "--sequential-ids",
        action="store_true",
        help="generate ids 00000001, 00000002, ... (as pi's conformance harness) so migrated files compare",
    )
    inspect.add_argument(
        "--pi",
        metavar="VERSION",
        choices=("0.73.1", "1.6.0"),
        help="answer as this pi version (0.73.1 or 1.6.0); default: the piVersion setting (1.6.0)",
    )
    ask = sub.add_parser("ask", help="send one message and stream the reply to stdout (appends to the session)")
    ask.add_argument("text", help="the message")
    ask.add_argument("--session", help="session file to continue (created if missing); default: a new session")
    ask.add_argument("--leaf", help="continue from this entry instead of the last one")
    ask.add_argument("--base-url", help="an Anthropic-compatible API endpoint")
    ask.add_argument("--model", help="model id (e.g. claude-sonnet-4-5, or 'offline')")
    ask.add_argument(
        "--yes", action="store_true", help="allow every tool call (write, edit, bash); without it they are denied"
    )
    shot = sub.add_parser("screenshot", help="render the main window offscreen with a session open and save a PNG")
    shot.add_argument("file", help="a session .jsonl file")
    shot.add_argument("--out", required=True, help="where to write the PNG")
    shot.add_argument("--leaf", help="show the context of this entry")
    shot.add_argument("--select", help="select this node (e.g. a compaction, to show its audit)")
    shot.add_argument("--size", default="1600x1000", help="WIDTHxHEIGHT in pixels (default 1600x1000)")
    shot.add_argument(
        "--sessions", action="store_true",
        help="show the sessions panel (hidden by default: a screenshot for a bug report should not list your other sessions)",
    )
    shot.add_argument(
        "--theme", choices=("light", "dark", "system"),
        help="the window's colours, as the theme setting (default: Qt's own palette)",
    )
    shot.add_argument("--settings", action="store_true", help="show the Settings dialog over the window")
    imp = sub.add_parser(
        "import",
        help="write a Claude Code transcript as a pi session file (the transcript is only read)",
    )
    imp.add_argument("file", help="a Claude Code transcript (~/.claude/projects/<folder>/<uuid>.jsonl)")
    imp.add_argument("--out", required=True, help="the pi session file to write (must not exist yet)")
    sub.add_parser(
        "install-desktop-entry",
        help="add Arbor to your applications menu: arbor.desktop and its icon into $XDG_DATA_HOME (~/.local/share)",
    )
    return parser


def session_file_problem(path: str) -> str | None:
    """Why ``path`` cannot be a session file to show (``None`` if it is a regular file), in plain words."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "no such session file"
    except OSError as exc:
        return f"cannot read it ({exc.strerror or exc})"
    if stat.S_ISDIR(mode):
        return "is a directory, not a session file"
    if stat.S_ISFIFO(mode):
        return "is a named pipe (FIFO), not a session file"
    if not stat.S_ISREG(mode):
        return "is not a regular file (a device or socket), not a session file"
    return None


def _import(path: str, out: str) -> int:
    """``arbor import FILE --out OUT.jsonl``: one line of what was written, or one line of why not."""
    problem = session_file_problem(path)
    if problem is not None:
        print(f"arbor import: {path}: {problem.replace('session file', 'transcript')}", file=sys.stderr)
        return 2
    from .transcripts import TranscriptError, import_transcript, is_claude_code_transcript

    if not is_claude_code_transcript(path):
        print(f"arbor import: {path}: not a Claude Code transcript (a pi session opens as it is: arbor FILE)",
              file=sys.stderr)
        return 2
    try:
        result = import_transcript(path, out)
    except TranscriptError as exc:
        print(f"arbor import: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {result.out}: {result.messages} messages, {result.compactions} compaction(s), "
          f"{result.entries} entries")
    for note in result.notes:
        print(f"note: {note}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args_list = sys.argv[1:] if argv is None else argv
    parser = _parser()
    if not args_list or (args_list[0] not in COMMANDS and not args_list[0].startswith("-")):
        if len(args_list) > 1:
            parser.error("give at most one session file")
        from .ui.app import run_gui

        return run_gui(args_list[0] if args_list else None)
    args = parser.parse_args(args_list)
    if args.command == "inspect":
        from .inspection import run
        from .session.profile import profile_for
        from .settings import Settings

        version = args.pi if args.pi is not None else Settings.load().pi_version
        return run(args.file, args.sequential_ids, profile_for(version))
    if args.command == "ask":
        from .agent.ask import run as run_ask

        return run_ask(args.text, args.session, args.leaf, args.base_url, args.model, args.yes)
    if args.command == "screenshot":
        problem = session_file_problem(args.file)
        if problem is not None:
            print(f"arbor screenshot: {args.file}: {problem}", file=sys.stderr)
            return 2
        from .ui.screenshot import run as run_screenshot

        return run_screenshot(args.file, args.out, args.leaf, args.select, args.size, sessions=args.sessions,
                              theme=args.theme, settings_dialog=args.settings)
    if args.command == "import":
        return _import(args.file, args.out)
    if args.command == "install-desktop-entry":
        from .desktop_entry import run as run_install

        return run_install()
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
