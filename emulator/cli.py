"""`metrics-etl emulator` and `python -m emulator`: run the emulator until interrupted."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import threading
from datetime import date
from pathlib import Path

from emulator.config import (
    REPORT_FILE_LEVELS,
    EmulatorConfig,
    parse_fault_spec,
    parse_record_drift,
    parse_vendors,
)
from emulator.errors import EmulatorError
from emulator.server import running_emulator


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0: a free one)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--repos", type=int, default=8)
    parser.add_argument("--issues-per-repo", type=int, default=30)
    parser.add_argument("--dialect", choices=["service", "github"], default="service")
    parser.add_argument(
        "--today", type=date.fromisoformat, default=None, help="the emulator's today, YYYY-MM-DD (default: UTC today)"
    )
    parser.add_argument("--org", default="acme", help="organization name; a comma list serves several (acme,globex)")
    parser.add_argument("--enterprise", default="acme-corp", help="enterprise name; a comma list serves several")
    parser.add_argument("--history-days", type=int, default=60)
    parser.add_argument("--user-lines-per-file", type=int, default=20_000)
    parser.add_argument(
        "--report-file",
        type=Path,
        default=None,
        help="pre-generated user-level NDJSON served as the users-1-day report",
    )
    parser.add_argument("--report-file-day", type=date.fromisoformat, default=None)
    parser.add_argument(
        "--report-file-level",
        choices=REPORT_FILE_LEVELS,
        default="user",
        help="which 1-day report of the organization the file is served as (default: user)",
    )
    parser.add_argument(
        "--second-enterprise-in-28-day",
        action="store_true",
        help="the enterprise 28-day file also holds another enterprise's wrapper line",
    )
    parser.add_argument("--faults", default="", help="e.g. error_rate=0.1,drop_rate=0.05")
    parser.add_argument(
        "--cloud-agent-from",
        type=date.fromisoformat,
        default=None,
        help="the day coding-agent fields became cloud-agent fields (default: always cloud)",
    )
    parser.add_argument(
        "--record-drift",
        default="",
        help="records a changed service sends, e.g. undeclared_field=totals_by_future_widget,mistyped_every=3",
    )
    parser.add_argument(
        "--unassigned-seats",
        type=int,
        default=0,
        help="seats with a null assignee (a deleted or pending account) ending each seat listing",
    )
    parser.add_argument(
        "--billing-read",
        choices=["on", "off"],
        default="on",
        help="off: the owner's and installation's tokens lack billing read (billing answers 403)",
    )
    parser.add_argument(
        "--vendors",
        default="claude,cursor",
        help="the vendors served beside the service: claude, cursor, a comma list, or none",
    )
    parser.add_argument(
        "--credentials-out",
        type=Path,
        default=None,
        help="write the credentials JSON here (the app key goes next to it)",
    )


def _config(args: argparse.Namespace) -> EmulatorConfig:
    return EmulatorConfig(
        seed=args.seed,
        users=args.users,
        repos=args.repos,
        issues_per_repo=args.issues_per_repo,
        dialect=args.dialect,
        today=args.today,
        org=args.org,
        enterprise=args.enterprise,
        history_days=args.history_days,
        user_lines_per_file=args.user_lines_per_file,
        report_file=args.report_file,
        report_file_day=args.report_file_day,
        report_file_level=args.report_file_level,
        second_enterprise_in_28_day=args.second_enterprise_in_28_day,
        faults=parse_fault_spec(args.faults),
        record_drift=parse_record_drift(args.record_drift),
        cloud_agent_from=args.cloud_agent_from,
        unassigned_seats=args.unassigned_seats,
        billing_read=args.billing_read == "on",
        vendors=parse_vendors(args.vendors),
    )


def run(args: argparse.Namespace) -> int:
    try:
        config = _config(args)
        out: Path | None = args.credentials_out
        key_path = out.with_name(out.stem + "-app-key.pem") if out else None
        with running_emulator(config, port=args.port, key_path=key_path) as emu:
            if out:
                out.parent.mkdir(parents=True, exist_ok=True)
                fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                with os.fdopen(fd, "w") as handle:
                    json.dump(emu.credentials, handle, indent=2)
                print(f"credentials written to {out}", file=sys.stderr)
            print(emu.base_url, flush=True)
            # SIGTERM stops the server as Ctrl-C does, even when the parent ignored it: a test
            # runner started in the background ignores SIGINT, Dagster's interrupt handling then
            # gives SIGTERM the same disposition, and every child would inherit an ignored SIGTERM.
            signal.signal(signal.SIGTERM, signal.default_int_handler)
            with contextlib.suppress(KeyboardInterrupt):
                threading.Event().wait()
    except (EmulatorError, OSError) as exc:
        print(f"emulator: {exc}", file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m emulator", description=__doc__.splitlines()[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))
