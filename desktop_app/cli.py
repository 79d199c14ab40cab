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
    return parser


def main(argv: list[str] | None = None) -> int:
    args_list = sys.argv[1:] if argv is None else argv
    parser = _parser()
    args = parser.parse_args(args_list)
    if args.command == "inspect":
        from .inspect import run

        return run(args.file, args.sequential_ids)
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
