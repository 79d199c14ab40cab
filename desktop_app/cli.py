"""Command line: ``arbor`` (the window), ``arbor FILE.jsonl``, ``arbor inspect``, ``arbor ask``,
``arbor restore``, ``arbor screenshot``, ``arbor import``, ``arbor export``, ``arbor install-desktop-entry``."""

from __future__ import annotations

import argparse
import os
import stat
import sys

COMMANDS = ("inspect", "ask", "restore", "screenshot", "import", "export", "install-desktop-entry")


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
        usage="arbor [FILE.jsonl] | arbor {inspect,ask,restore,screenshot,import,export,install-desktop-entry} ...",
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
    restore = sub.add_parser(
        "restore",
        help="put the session's working folder back as it was at an entry (prints M/A/D path; --yes to do it)",
    )
    restore.add_argument("session", help="a session .jsonl file")
    restore.add_argument("entry_id", help="the entry whose files to go back to")
    restore.add_argument("--yes", action="store_true", help="restore the files (without it, only print what would change)")
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
    export = sub.add_parser(
        "export",
        help="write a session as one self-contained web page (tree, chat, compaction audits) and/or Markdown",
        description="Write SESSION as one web page that opens in any browser with no network: the tree with "
        "its active path, the chat of the active path, every compaction's audit, branch summaries and labels; "
        "and/or the active path as Markdown. Only the session's content is written (no settings, no keys).",
    )
    export.add_argument("file", metavar="SESSION", help="a session .jsonl file (read, never written)")
    export.add_argument("--html", metavar="OUT.html", help="write the web page here")
    export.add_argument("--markdown", metavar="OUT.md", help="write the active path as Markdown here")
    export.add_argument("--leaf", help="export the path to this entry instead of the session's leaf")
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


def _output_problem(out: str) -> str | None:
    """Why a file cannot be written at ``out`` (``None``: it can, as far as a look tells)."""
    folder = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(folder):
        return f"no such folder {folder}"
    if os.path.isdir(out):
        return "is a folder; give a file name"
    return None


def _export(session: str, html: str | None, markdown: str | None, leaf: str | None) -> int:
    """``arbor export``: clear errors (exit 2), steps said on stderr once the work passes a second."""
    import time

    def fail(message: str) -> int:
        print(f"arbor export: {message}", file=sys.stderr)
        return 2

    if html is None and markdown is None:
        return fail("say what to write: --html OUT.html and/or --markdown OUT.md")
    problem = session_file_problem(session)
    if problem is not None:
        return fail(f"{session}: {problem}")
    for out in (html, markdown):
        out_problem = _output_problem(out) if out is not None else None
        if out_problem is not None:
            return fail(f"{out}: {out_problem}")
    from .export import export_file
    from .session.store import SessionFileError

    start = time.monotonic()
    pending: list[str] = []

    def progress(step: str) -> None:
        """Quick exports say nothing; a slow one says each step (the late first one included)."""
        pending.append(step)
        if time.monotonic() - start > 1.0:
            for said in pending:
                print(f"arbor export: {said}…", file=sys.stderr, flush=True)
            pending.clear()

    try:
        report = export_file(session, html, markdown, leaf_id=leaf, progress=progress)
    except SessionFileError as exc:
        return fail(f"{session}: cannot read it as a session ({exc})")
    except OSError as exc:
        return fail(f"cannot write: {exc.strerror or exc}" + (f" ({exc.filename})" if exc.filename else ""))
    facts = report.facts
    if report.html_path is not None and facts is not None:
        print(
            f"wrote {report.html_path} ({report.html_bytes / 1e6:.1f} MB): {facts.tree_nodes:,} tree nodes for "
            f"{facts.entries:,} entries, the chat of {facts.chat_entries:,} path entries, {facts.compactions} compactions"
        )
    if report.markdown_path is not None:
        print(f"wrote {report.markdown_path} ({report.markdown_bytes / 1e6:.1f} MB): the active path as Markdown")
    if time.monotonic() - start > 1.0:
        print(f"arbor export: done in {report.seconds:.1f} s", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    args_list = sys.argv[1:] if argv is None else argv
    parser = _parser()
    if not args_list or (args_list[0] not in COMMANDS and not args_list[0].startswith("-")):
        from .ui.window_args import window_args

        wanted = window_args(args_list)
        if wanted is None:
            parser.error("give at most one session file")
        from .ui.app import run_gui

        return run_gui(wanted.path, files_from=wanted.files_from)
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
    if args.command == "restore":
        problem = session_file_problem(args.session)
        if problem is not None:
            print(f"arbor restore: {args.session}: {problem}", file=sys.stderr)
            return 1
        from .settings import Settings as RestoreSettings
        from .workspace.restore_command import run as run_restore

        limit = RestoreSettings.load().checkpoints.size_limit  # files past it are left alone, as in the checkpoints
        return run_restore(args.session, args.entry_id, args.yes, size_limit=limit)
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
    if args.command == "export":
        return _export(args.file, args.html, args.markdown, args.leaf)
    if args.command == "install-desktop-entry":
        from .desktop_entry import run as run_install

        return run_install()
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
