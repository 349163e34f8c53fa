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


def _cmd_webhooks_serve(args: argparse.Namespace) -> int:
    from pipelines.config import Settings
    from pipelines.service.errors import ConfigError
    from pipelines.webhooks.app import ReceiverConfig, serve
    from pipelines.webhooks.errors import WebhookConfigError

    try:
        config = ReceiverConfig.from_settings(Settings.from_env())
    except (ConfigError, WebhookConfigError) as exc:
        print(f"metrics-etl webhooks serve: {exc}", file=sys.stderr)
        return 2
    serve(config=config, host=args.host, port=args.port)
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    from pipelines.config import Settings
    from pipelines.service.commands import run_check
    from pipelines.service.errors import ConfigError

    try:
        settings = Settings.from_env()
    except ConfigError as exc:
        print(f"configuration: {exc}")
        return 1
    return run_check(settings=settings, out=sys.stdout)


def _cmd_login(args: argparse.Namespace) -> int:
    from pipelines.config import Settings
    from pipelines.service.commands import run_login
    from pipelines.service.errors import ConfigError

    try:
        settings = Settings.from_env()
    except ConfigError as exc:
        print(f"configuration: {exc}")
        return 1
    return run_login(settings=settings, out=sys.stdout)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="metrics-etl", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    from emulator.cli import add_arguments as add_emulator_arguments

    emu = sub.add_parser("emulator", help="run the platform emulator on loopback")
    add_emulator_arguments(emu)
    emu.set_defaults(handler=_cmd_emulator)

    webhooks = sub.add_parser("webhooks", help="the webhook receiver").add_subparsers(dest="webhooks", required=True)
    hooks_serve = webhooks.add_parser("serve", help="accept deliveries at POST /webhooks into the spool")
    hooks_serve.add_argument("--host", default="127.0.0.1", help="bind address (put HTTPS in front of it)")
    hooks_serve.add_argument("--port", type=int, default=8787)
    hooks_serve.set_defaults(handler=_cmd_webhooks_serve)
    sub.add_parser("check", help="verify credentials, permissions and policy against the service").set_defaults(
        handler=_cmd_check
    )
    sub.add_parser("login", help="OAuth login on a loopback redirect; stores the token owner-only").set_defaults(
        handler=_cmd_login
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = args.handler
    return handler(args)


if __name__ == "__main__":
    sys.exit(main())
