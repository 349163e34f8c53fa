"""The `metrics-etl` command.

Each subcommand imports what it needs when it runs, so `metrics-etl emulator` starts without
loading Dagster, and an expected failure prints one line instead of a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from pipelines.config import Settings
    from pipelines.quarantine import QuarantinedLine, Selection
    from pipelines.service import AccessProblem, Budget


def _cmd_emulator(args: argparse.Namespace) -> int:
    from emulator.cli import run

    return run(args)


_DEMO_DAYS = 35


def _demo_environment(creds: dict[str, str]) -> dict[str, str]:
    """Point the pipeline at the emulator; keep any storage paths the user has set."""
    env = {
        "SERVICE_BASE_URL": creds["base_url"],
        "SERVICE_GRAPHQL_URL": creds["graphql_url"],
        "SERVICE_OAUTH_URL": creds["oauth_url"],
        "SERVICE_TOKEN": creds["token"],
        "SERVICE_ORG": creds["org"],
        "SERVICE_ENTERPRISE": creds["enterprise"],
        "SERVICE_ETAG_CACHE": "data/demo/http-cache.sqlite3",
    }
    for name in ("SERVICE_REPOS", "SERVICE_APP_ID", "SERVICE_APP_PRIVATE_KEY", "SERVICE_APP_PRIVATE_KEY_PATH",
                 "SERVICE_INSTALLATION_ID", "SERVICE_API_VERSION", "SERVICE_DIALECT"):
        os.environ.pop(name, None)
    return env


def _cmd_demo(args: argparse.Namespace) -> int:
    from emulator import EmulatorConfig, running_emulator
    from pipelines.config import Settings
    from pipelines.runs import RunFailed, RunPlan, run_plan, summarize

    today = date.today()
    config = EmulatorConfig(seed=args.seed, users=args.users, repos=args.repos, history_days=max(60, args.days + 5))
    with running_emulator(config) as emu:
        print(f"emulator: {emu.base_url} (seed {args.seed}, {args.users} users, {args.repos} repositories)")
        os.environ.update(_demo_environment(emu.credentials))
        os.environ["METRICS_START_DAY"] = (today - timedelta(days=args.days)).isoformat()
        settings = Settings.from_env()
        plan = RunPlan(first_day=today - timedelta(days=args.days), last_day=today - timedelta(days=1))
        try:
            run_plan(plan, log_dir=settings.warehouse_path.parent / "logs", out=sys.stdout)
        except RunFailed as exc:
            print(f"metrics-etl demo: {exc}", file=sys.stderr)
            return 1
    from pipelines.export import BiSources
    from pipelines.report import write_report

    summarize(settings.warehouse_path, serving=settings.serving_path, out=sys.stdout)
    report = write_report(sources=BiSources.from_env(), out=Path("data/report.html"))
    print(f"\nreport: {report.resolve()}  (agent adoption at a glance; `metrics-etl report` rewrites it)")
    return 0


def _run_days(args: argparse.Namespace, *, today: date) -> tuple[date, date] | str:
    """The run's first and last day, or why the arguments make no sense (one line)."""
    yesterday = today - timedelta(days=1)
    if args.end and args.day:
        return "--to goes with --from, not with --day (--day runs one day)"
    if args.end and not args.start:
        return "--to needs --from (for one day use --day)"
    first = args.day or args.start or yesterday
    last = args.day or args.end or yesterday
    if first > last:
        return f"--from {first} is after --to {last}"
    if first > today:
        return f"{first} is in the future: a day's report exists once the day has ended (UTC); the newest is {yesterday}"
    return first, min(last, yesterday)


def _cmd_run(args: argparse.Namespace) -> int:
    from pipelines.config import Settings
    from pipelines.runs import RunFailed, RunPlan, run_plan, summarize
    from pipelines.service.errors import ServiceError

    today = datetime.now(timezone.utc).date()
    days = _run_days(args, today=today)
    if isinstance(days, str):
        print(f"metrics-etl run: {days}", file=sys.stderr)
        return 2
    first, last = days
    try:
        settings = Settings.from_env()
        settings.require_base_url()
        if settings.metrics_start_day and first < settings.metrics_start_day:
            print(f"metrics-etl run: {first} is before METRICS_START_DAY {settings.metrics_start_day}", file=sys.stderr)
            return 2
        if not settings.metrics_start_day:
            os.environ["METRICS_START_DAY"] = min(first, settings.start_day(today=today)).isoformat()
        asked_last = args.day or args.end
        if asked_last is not None and asked_last >= today:
            # Today has not ended (UTC): no report of it can exist yet, so it is not asked for.
            print(f"usage reports: {today} not available yet: a day's report exists once the day has ended (UTC)")
        plan = RunPlan(first_day=first, last_day=last, latest_28_day=args.latest, snapshots=args.snapshots)
        run_plan(plan, log_dir=settings.warehouse_path.parent / "logs", out=sys.stdout)
    except (RunFailed, ServiceError) as exc:
        print(f"metrics-etl run: {exc}", file=sys.stderr)
        return 1
    summarize(settings.warehouse_path, serving=settings.serving_path, out=sys.stdout)
    return 0


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a day YYYY-MM-DD: {text!r}") from None


_RECEIVER_LIMITS: dict[str, tuple[type, str]] = {
    "max_body_bytes": (int, "largest body accepted; larger ones get 413 unread"),
    "header_timeout": (float, "seconds for a request's headers to arrive"),
    "body_timeout": (float, "seconds for a request's body to arrive once its headers are in"),
    "max_connections": (int, "connections held open at once; more are answered 503 and closed"),
    "max_header_bytes": (int, "largest request head; larger ones get 431"),
    "max_body_memory_bytes": (int, "request bodies held in memory at once, all requests together"),
    "refusal_log_interval": (float, "seconds between log lines counting one kind of refusal"),
}


def _cmd_webhooks_serve(args: argparse.Namespace) -> int:
    from pipelines.config import Settings
    from pipelines.service.errors import ConfigError
    from pipelines.webhooks.app import ReceiverConfig, serve
    from pipelines.webhooks.errors import WebhookConfigError

    try:
        # Only the limits given on the command line: ReceiverConfig holds the defaults.
        limits = {name: getattr(args, name) for name in _RECEIVER_LIMITS if hasattr(args, name)}
        config = ReceiverConfig.from_settings(Settings.from_env(), **limits)
    except (ConfigError, WebhookConfigError) as exc:
        print(f"metrics-etl webhooks serve: {exc}", file=sys.stderr)
        return 2
    serve(config=config, host=args.host, port=args.port)
    return 0


def _with_settings(run: Callable[..., int]) -> int:
    from pipelines.config import Settings
    from pipelines.service.errors import ConfigError

    try:
        settings = Settings.from_env()
    except ConfigError as exc:
        print(f"configuration: {exc}")
        return 1
    return run(settings=settings, out=sys.stdout)


def _cmd_check(args: argparse.Namespace) -> int:
    return _with_settings(_check)


def _check(*, settings: Settings, out: TextIO) -> int:
    """One line per problem, or one OK line naming what is readable and the budget; exit 0 or 1."""
    import dataclasses

    from pipelines.service import ConfigError, ServiceClient, check_access

    problems: list[str] = []
    if settings.token is None and not settings.uses_app:
        problems.append(
            "no credentials: set SERVICE_TOKEN, run `metrics-etl login`, or set SERVICE_APP_ID, "
            "SERVICE_APP_PRIVATE_KEY(_PATH) and SERVICE_INSTALLATION_ID"
        )
    if not settings.scopes:
        problems.append("no report scope: set SERVICE_ORG or SERVICE_ENTERPRISE (comma lists for several)")
    try:
        # A check must answer now: never wait for a rate-limit reset, never touch the ETag cache.
        config = dataclasses.replace(settings.service_config(), rate_limit_max_wait=0.0, etag_cache=None)
        client = ServiceClient(config=config)
    except ConfigError as exc:
        problems.append(f"configuration: {exc}")
    else:
        with client:
            check = check_access(client, settings.scopes)
        # Every call fails alike on bad credentials: one line per problem, not per call.
        failed: dict[str, str] = {}
        for problem in check.problems:
            failed.setdefault(_problem_label(problem), str(problem.error))
        problems += [f"{label}: {text}" for label, text in failed.items()]
    for line in problems:
        print(line, file=out)
    if problems:
        return 1
    readable = "; ".join(
        f"{a.scope} {a.scope_name!r} readable (no 28-day report yet)" if a.report is None
        else f"{a.scope} {a.scope_name!r} 28-day report readable ({a.report.start_day}..{a.report.end_day})"
        for a in check.readable
    )
    print(f"OK: {client.base_url}: {readable}; {_budget_text(check.budget)}", file=out)
    return 0


def _problem_label(problem: AccessProblem) -> str:
    if problem.kind == "unknown_scope" and problem.scope is not None:
        scope, name = problem.scope
        variable = "SERVICE_ORG" if scope == "organization" else "SERVICE_ENTERPRISE"
        return f"unknown {scope} {name!r} in {variable}"
    return problem.kind.replace("_", " ")


def _budget_text(budget: Budget | None) -> str:
    if budget is None or budget.remaining is None:
        return "rate limit budget unknown"
    reset = datetime.fromtimestamp(budget.reset, tz=UTC).isoformat(timespec="seconds") if budget.reset else "unknown"
    return f"rate limit {budget.remaining}/{budget.limit} remaining, resets {reset}"


def _cmd_login(args: argparse.Namespace) -> int:
    return _with_settings(_login)


def _login(*, settings: Settings, out: TextIO) -> int:
    """The OAuth authorization-code flow; stores the token (0600) at SERVICE_TOKEN_FILE."""
    import webbrowser

    from pipelines.service import ServiceError, oauth_login

    required = (
        ("SERVICE_OAUTH_URL (or SERVICE_BASE_URL)", settings.oauth_url),
        ("SERVICE_CLIENT_ID", settings.client_id),
        ("SERVICE_CLIENT_SECRET", settings.client_secret),
    )
    if missing := [name for name, value in required if not value]:
        for name in missing:
            print(f"login needs {name}", file=out)
        return 1
    assert settings.oauth_url and settings.client_id and settings.client_secret

    def show(url: str) -> object:
        print(f"Open this address to authorize metrics-etl:\n  {url}", file=out, flush=True)
        return webbrowser.open(url)

    try:
        path = oauth_login(
            oauth_url=settings.oauth_url,
            client_id=settings.client_id,
            client_secret=settings.client_secret,
            token_file=settings.token_file,
            open_browser=show,
        )
    except ServiceError as exc:
        print(f"login failed: {exc}", file=out)
        return 1
    except OSError as exc:
        print(f"login failed: cannot store the token at {settings.token_file}: {exc.strerror}", file=out)
        return 1
    print(f"OK: token stored in {path} (owner-only permissions)", file=out)
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from pipelines.export import BiError, BiSources
    from pipelines.report import write_report
    from pipelines.service.errors import ConfigError

    try:
        path = write_report(sources=BiSources.from_env(), out=args.out)
    except (BiError, ConfigError) as exc:
        print(f"metrics-etl report: {exc}", file=sys.stderr)
        return 1
    print(f"report: {path.resolve()}")
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    from pipelines.export import BiError, BiSources, export_view
    from pipelines.service.errors import ConfigError

    try:
        rows = export_view(sources=BiSources.from_env(), view=args.view, fmt=args.format, out=args.out)
    except (BiError, ConfigError) as exc:
        print(f"metrics-etl export: {exc}", file=sys.stderr)
        return 1
    print(f"exported {rows:,} rows of bi.{args.view.removeprefix('bi.')} to {args.out.resolve()}")
    return 0


_REASON_WIDTH = 100


def _utc(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


# Control characters of the platform's bytes, shown escaped: a quarantined line may hold
# anything, and a terminal must not act on it.
_CONTROLS = {code: f"\\x{code:02x}" for code in (*range(0x20), *range(0x7F, 0xA0)) if code != 0x09}


def _printable(text: str) -> str:
    return text.translate(_CONTROLS)


def _short(text: str, width: int = _REASON_WIDTH) -> str:
    """The first line of a reason, cut to `width` characters: one line per quarantined line."""
    line = " ".join(text.splitlines()[0].split()) if text.strip() else ""
    line = _printable(line)
    return line if len(line) <= width else line[: width - 1] + "…"


def _quarantine_selection(args: argparse.Namespace) -> Selection | str:
    """The Selection the day options name, or why they make no sense (one line)."""
    from pipelines.quarantine import Selection

    if args.end and not args.start:
        return "--to needs --from (for one day use --day)"
    first = args.day or args.start
    last = args.day or args.end
    if first and last and first > last:
        return f"--from {first} is after --to {last}"
    return Selection(first_day=first, last_day=last, scope_name=args.scope_name)


def _quarantine_failed(args: argparse.Namespace, message: str, code: int = 1) -> int:
    print(f"metrics-etl quarantine {args.quarantine}: {message}", file=sys.stderr)
    return code


def _warehouse_path() -> Path:
    from pipelines.config import Settings

    return Settings.from_env().warehouse_path


def _format_list(lines: list[QuarantinedLine], *, include_cleared: bool) -> list[str]:
    width = max((len(str(line.key)) for line in lines), default=0)
    out = [f"{line.key!s:{width}}  {'' if line.is_open else '[cleared] '}{_short(line.reason)}" for line in lines]
    opened = sum(1 for line in lines if line.is_open)
    count = f"{opened} open line{'s' if opened != 1 else ''}"
    if include_cleared:
        count += f", {len(lines) - opened} cleared"
    if lines:
        count += " (`metrics-etl quarantine show KEY` prints one whole)"
    return [*out, count]


def _cmd_quarantine_list(args: argparse.Namespace) -> int:
    from pipelines.quarantine import QuarantineError, list_lines, open_warehouse
    from pipelines.service.errors import ConfigError

    selection = _quarantine_selection(args)
    if isinstance(selection, str):
        return _quarantine_failed(args, selection, 2)
    try:
        with open_warehouse(_warehouse_path(), write=False) as conn:
            lines = list_lines(conn, selection, include_cleared=args.include_cleared)
    except (QuarantineError, ConfigError) as exc:
        return _quarantine_failed(args, str(exc))
    print("\n".join(_format_list(lines, include_cleared=args.include_cleared)))
    return 0


def _format_show(line: QuarantinedLine) -> list[str]:
    import shlex

    key = line.key
    days = str(key.start_day) if key.start_day == key.end_day else f"{key.start_day} to {key.end_day}"
    status = ("open: it needs a look (a pipeline fix and a re-run of the day, or `clear --note`)" if line.is_open
              else f"cleared {_utc(line.cleared_at)}: {_printable(line.cleared_note or '')}")
    archive = shlex.quote(line.archive_path)
    out = [
        f"key          {key}",
        f"status       {status}",
        f"report       {key.scope} {key.scope_name}, {key.level} level, {line.report_kind} report of {days}",
        f"file         {key.file_index:04d}, fetched {_utc(line.fetched_at)} from {_printable(line.link)}",
        f"line         {key.line_number}",
        f"reason       {_printable(line.reason)}",
        f"archive      {line.archive_path}",
        f"whole line   zstd -dc {archive} | sed -n '{key.line_number}p'",
    ]
    if not Path(line.archive_path).is_absolute():
        out.append("             (the archive path is relative to the directory the pipeline runs in)")
    if line.line_text is None:
        out.append("text         not kept: the command above prints the line from the archive")
    else:
        out.append("text         as stored (a line's first 2,000 bytes, control characters as \\xNN; "
                   "the archive keeps it whole):")
        out.append(_printable(line.line_text))
    return out


def _cmd_quarantine_show(args: argparse.Namespace) -> int:
    from pipelines.quarantine import (
        BadKey,
        LineKey,
        QuarantineError,
        find_lines,
        open_warehouse,
    )
    from pipelines.service.errors import ConfigError

    try:
        key = LineKey.parse(args.key)
    except BadKey as exc:
        return _quarantine_failed(args, str(exc), 2)
    try:
        with open_warehouse(_warehouse_path(), write=False) as conn:
            lines = find_lines(conn, key)
    except (QuarantineError, ConfigError) as exc:
        return _quarantine_failed(args, str(exc))
    if not lines:
        return _quarantine_failed(args, f"no quarantined line has key {key} (`metrics-etl quarantine list --all` prints the keys)")
    print("\n\n".join("\n".join(_format_show(line)) for line in lines))
    return 0


def _clear_refusal(args: argparse.Namespace) -> str | None:
    """Why a clear request is refused before the warehouse is opened, if it is."""
    has_days = bool(args.day or args.start or args.end)
    if not args.keys and not has_days:
        return ("name the lines to clear: KEYs as `metrics-etl quarantine list` prints them, "
                "or --day D / --from D --to D (with --scope-name NAME)")
    if args.keys and (has_days or args.scope_name):
        return "give KEYs or a day selection (--day, --from/--to, --scope-name), not both"
    if not (args.note or "").strip():
        return "--note TEXT is required and not empty: say why the lines are accepted (it is kept with them)"
    return None


def _cmd_quarantine_clear(args: argparse.Namespace) -> int:
    from pipelines.quarantine import (
        BadKey,
        LineKey,
        QuarantineError,
        clear_keys,
        clear_selection,
        open_warehouse,
    )
    from pipelines.service.errors import ConfigError

    refusal = _clear_refusal(args)
    selection = _quarantine_selection(args)
    if refusal or isinstance(selection, str):
        return _quarantine_failed(args, refusal or str(selection), 2)
    try:
        keys = [LineKey.parse(text) for text in args.keys]
    except BadKey as exc:
        return _quarantine_failed(args, str(exc), 2)
    try:
        with open_warehouse(_warehouse_path(), write=True) as conn:
            done = clear_keys(conn, keys, note=args.note) if keys else clear_selection(conn, selection, note=args.note)
    except (QuarantineError, ConfigError) as exc:
        return _quarantine_failed(args, str(exc))
    if done.cleared == done.already == 0:
        return _quarantine_failed(args, "no quarantined line in that selection (`metrics-etl quarantine list --all` "
                                        "with the same options shows what it holds)")
    already = f"; {done.already} cleared before, left as they were" if done.already else ""
    print(f"cleared {done.cleared} line{'s' if done.cleared != 1 else ''}{already}. "
          "A cleared line stays cleared when its report is fetched again and still holds it.")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="metrics-etl", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    from emulator.cli import add_arguments as add_emulator_arguments

    emu = sub.add_parser("emulator", help="run the platform emulator on loopback")
    add_emulator_arguments(emu)
    emu.set_defaults(handler=_cmd_emulator)

    demo = sub.add_parser("demo", help="start the emulator and run every asset for the last 35 days")
    demo.add_argument("--days", type=int, default=_DEMO_DAYS)
    demo.add_argument("--users", type=int, default=300)
    demo.add_argument("--repos", type=int, default=12)
    demo.add_argument("--seed", type=int, default=42)
    demo.set_defaults(handler=_cmd_demo)

    run = sub.add_parser("run", help="run the jobs against the configured service, through Dagster")
    when = run.add_mutually_exclusive_group()
    when.add_argument("--day", type=_day, help="one report day (default: yesterday, UTC)")
    when.add_argument("--from", dest="start", type=_day, help="first day of a range")
    run.add_argument("--to", dest="end", type=_day, help="last day of a range, with --from (default: yesterday)")
    run.add_argument("--no-latest", dest="latest", action="store_false", help="skip the latest 28-day report")
    run.add_argument("--no-snapshots", dest="snapshots", action="store_false", help="skip today's snapshot")
    run.set_defaults(handler=_cmd_run)

    webhooks = sub.add_parser("webhooks", help="the webhook receiver").add_subparsers(dest="webhooks", required=True)
    hooks_serve = webhooks.add_parser("serve", help="accept deliveries at POST /webhooks into the spool")
    hooks_serve.add_argument("--host", default="127.0.0.1", help="bind address (put HTTPS in front of it)")
    hooks_serve.add_argument("--port", type=int, default=8787)
    # The limits' defaults live in ReceiverConfig alone (docs/webhooks.md, "Limits").
    for name, (kind, what) in _RECEIVER_LIMITS.items():
        hooks_serve.add_argument("--" + name.replace("_", "-"), type=kind, default=argparse.SUPPRESS, help=what)
    hooks_serve.set_defaults(handler=_cmd_webhooks_serve)
    sub.add_parser("check", help="verify credentials, permissions and policy against the service").set_defaults(
        handler=_cmd_check
    )
    sub.add_parser("login", help="OAuth login on a loopback redirect; stores the token owner-only").set_defaults(
        handler=_cmd_login
    )

    report = sub.add_parser("report", help="write a self-contained HTML page of agent adoption")
    report.add_argument("--out", type=Path, default=Path("data/report.html"), help="default: data/report.html")
    report.set_defaults(handler=_cmd_report)
    export = sub.add_parser("export", help="write one bi.* view to CSV or Parquet, from the serving database")
    export.add_argument("--view", required=True, help="a bi.* view name, e.g. agent_usage_daily")
    export.add_argument("--format", choices=("csv", "parquet"), default="csv")
    export.add_argument("--out", type=Path, required=True)
    export.set_defaults(handler=_cmd_export)
    _add_quarantine(sub)
    return parser


def _add_day_selection(parser: argparse.ArgumentParser) -> None:
    when = parser.add_mutually_exclusive_group()
    when.add_argument("--day", metavar="D", type=_day, help="lines of the reports that cover this day (28-day reports too)")
    when.add_argument("--from", metavar="D", dest="start", type=_day, help="first day of a range")
    parser.add_argument("--to", metavar="D", dest="end", type=_day, help="last day of a range, with --from")
    parser.add_argument("--scope-name", metavar="NAME", help="one organization or enterprise, e.g. acme")


def _add_quarantine(sub: Any) -> None:
    group = sub.add_parser("quarantine", help="list, show and clear quarantined report lines")
    quarantine = group.add_subparsers(dest="quarantine", required=True)
    listing = quarantine.add_parser("list", help="open quarantined lines, newest reports first, one a line")
    _add_day_selection(listing)
    listing.add_argument("--all", dest="include_cleared", action="store_true", help="cleared lines too, marked")
    listing.set_defaults(handler=_cmd_quarantine_list)
    show = quarantine.add_parser("show", help="every field of one line and how to read it whole from its archive")
    show.add_argument("key", help="a key as `quarantine list` prints it")
    show.set_defaults(handler=_cmd_quarantine_show)
    clear = quarantine.add_parser("clear", help="accept lines the platform keeps serving; they stay cleared on re-fetch")
    clear.add_argument("keys", nargs="*", metavar="KEY", help="keys as `quarantine list` prints them")
    _add_day_selection(clear)
    clear.add_argument("--note", metavar="TEXT", help="why the lines are accepted (required, kept with them)")
    clear.set_defaults(handler=_cmd_quarantine_clear)


def main(argv: Sequence[str] | None = None) -> int:
    from pipelines._memory import bound_malloc_arenas

    bound_malloc_arenas()
    args = _parser().parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = args.handler
    return handler(args)


if __name__ == "__main__":
    sys.exit(main())
