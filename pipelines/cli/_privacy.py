"""`metrics-etl forget`: one person out of every store of the data home (docs/privacy.md)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import click

from pipelines._words import counted
from pipelines.cli._base import Failed, load_settings

if TYPE_CHECKING:
    from pipelines.config import Settings

# A numeric user id in ASCII digits, a login as the service spells one (an `@` before it, as in a
# mention), or an email (how the vendors name people: docs/vendors.md).
_PERSON = re.compile(r"[0-9]+|@?[A-Za-z0-9](?:[A-Za-z0-9_-]*[A-Za-z0-9])?|[^\s@\"]+@[^\s@\"]+\.[^\s@\"]+", re.ASCII)


@click.command()
@click.argument("who", metavar="LOGIN|USER_ID|EMAIL")
def forget(who: str) -> None:
    """Erase one person (a login, a numeric user id, or an email) from the warehouse, the lake, the
    serving databases, the raw archive, the ETag cache and the webhook spool and deliveries; the
    vendors' rows and records of their emails (given, or shown by their seats) too.

    Records that an erasure happened (when, how many rows, which stores), never whom, and keeps
    keyed hashes (METRICS_PSEUDONYM_KEY) so later fetches drop the person's lines on ingest.
    Waits for a run in progress (WAREHOUSE_LOCK_WAIT). After a crash, run it again.
    """
    from pipelines.config import ENV_VARS
    from pipelines.privacy import Places, ReceiverWriting
    from pipelines.privacy import forget as erase
    from pipelines.warehouse import migrate
    from pipelines.warehouse.lock import WarehouseUnavailable, connect_for_writing
    from pipelines.webhooks.errors import SpoolCorrupt

    settings = load_settings()
    if settings.pseudonym_key is None:
        raise Failed(
            f"{ENV_VARS['pseudonym_key']} is not set: set it (a long random secret, kept like the token) so later "
            "fetches can recognise the person without the warehouse naming them"
        )
    if not _PERSON.fullmatch(who.strip()):
        raise Failed(
            f"{who.strip()!r} is neither a login, a numeric user id nor an email: give the person's login (letters, "
            "digits, single hyphens, an `@` before it allowed), their user id in ASCII digits, or their email"
        )
    if not settings.warehouse_path.is_file():
        raise Failed(f"nothing to erase from: {settings.warehouse_path} does not exist")
    try:
        conn = connect_for_writing(settings.warehouse_path, config={}, wait=settings.lock_wait)
    except WarehouseUnavailable as exc:
        raise Failed(str(exc)) from None
    places = Places(
        raw_dir=settings.raw_dir,
        spool_dir=settings.webhook_spool_dir,
        etag_cache=settings.etag_cache,
        lake=settings.lake_path,
        serving=settings.serving_path,
        aggregate_k=settings.aggregate_k,
    )
    try:
        migrate(conn)
        result = erase(conn, who.strip(), key=settings.pseudonym_key.reveal(), places=places)
    except (ReceiverWriting, SpoolCorrupt) as exc:
        raise Failed(f"{exc}; the stores before it are done, run forget again to finish") from None
    finally:
        conn.close()
    if not result.person_known:
        click.echo("the warehouse does not name this person: every store was searched for what was given")
    for store, (rows, files) in result.stores.items():
        click.echo(f"{store}: {counted(rows, 'row')} removed, {counted(files, 'file')} changed")
    click.echo("erasure recorded in meta.erasures (when, how many, which stores; not whom)")
    _rewrite_pages(settings)


def _rewrite_pages(settings: Settings) -> None:
    """Every report page and export written for this home, written again without the person."""
    from pipelines.bi import BiSources, rewrite_exports
    from pipelines.page import rewrite_pages

    written, failed = rewrite_pages(
        sources=BiSources.from_settings(settings), home=settings.home, tier=settings.page_tier
    )
    for page in written:
        click.echo(f"report page written again: {page}")
    for page, what in failed:
        click.echo(f"report page {page}: {what}")
    exported, failed = rewrite_exports(sources=BiSources.from_settings(settings), home=settings.home)
    for out in exported:
        click.echo(f"export written again: {out}")
    for out, what in failed:
        click.echo(f"export {out}: {what}")
