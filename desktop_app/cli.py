"""Command line: ``arbor`` (the window), ``arbor FILE.jsonl``, ``arbor inspect``, ``arbor screenshot``."""

from __future__ import annotations

import argparse
import sys


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arbor",
        description="See and steer a conversation with an LLM agent as the tree it is (pi session files, v3).",
    )
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
    ask = sub.add_parser("ask", help="send one message and stream the reply to stdout (appends to the session)")
    ask.add_argument("text", help="the message")
    ask.add_argument("--session", help="session file to continue (created if missing); default: a new session")
    ask.add_argument("--leaf", help="continue from this entry instead of the last one")
    ask.add_argument("--base-url", help="an Anthropic-compatible API endpoint")
    ask.add_argument("--model", help="model id (e.g. claude-sonnet-4-5, or 'offline')")
    return parser


def main(argv: list[str] | None = None) -> int:
    args_list = sys.argv[1:] if argv is None else argv
    parser = _parser()
    args = parser.parse_args(args_list)
    if args.command == "inspect":
        from .inspect import run

        return run(args.file, args.sequential_ids)
    if args.command == "ask":
        from .agent.ask import run as run_ask

        return run_ask(args.text, args.session, args.leaf, args.base_url, args.model)
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
