"""The `metrics-etl` command.

Each subcommand imports what it needs when it runs, so `metrics-etl emulator` starts without
loading Dagster, and an expected failure prints one line instead of a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence


def _cmd_emulator(args: argparse.Namespace) -> int:
    from emulator.cli import run

    return run(args)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="metrics-etl", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    from emulator.cli import add_arguments as add_emulator_arguments

    emu = sub.add_parser("emulator", help="run the platform emulator on loopback")
    add_emulator_arguments(emu)
    emu.set_defaults(handler=_cmd_emulator)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = args.handler
    return handler(args)


if __name__ == "__main__":
    sys.exit(main())
