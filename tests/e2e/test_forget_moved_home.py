"""`forget` in a data home moved to another directory (a new disk, a restored copy), against the
emulator over loopback: the raw archive records each file by the path it had when it was written,
and the erasure still finds every archived report and seat listing under the home's RAW_DIR, so
no file of the moved home names the person (login, seat name or email) afterwards."""

from __future__ import annotations

import re
import shutil
from datetime import UTC, datetime, timedelta

import duckdb

from tests.e2e.test_forget import _scan
from tests.e2e.test_page_out_attacks import _cli, _env, emu  # noqa: F401 (the emulator fixture)


def test_forget_in_a_moved_home_erases_the_person_from_every_archived_file(tmp_path, emu):  # noqa: F811
    home = tmp_path / "home"
    home.mkdir()
    _cli(_env(home, emu), home, "run", "--day", (datetime.now(UTC).date() - timedelta(days=2)).isoformat())
    moved = tmp_path / "elsewhere" / "home"
    shutil.move(home, moved)
    env = _env(moved, emu)
    with duckdb.connect(str(moved / "warehouse.duckdb"), read_only=True) as conn:
        login, name, email = conn.execute(
            "SELECT s.login, s.assignee_name, s.assignee_email FROM snapshots.seats AS s"
            " JOIN core.user_daily_totals AS u ON u.user_id = s.user_id"
            " WHERE s.assignee_name IS NOT NULL AND s.assignee_email IS NOT NULL ORDER BY s.user_id LIMIT 1"
        ).fetchone()
    traces = re.compile("|".join(rf"(?<![0-9a-z.]){re.escape(v)}(?![0-9a-z])" for v in (login, name, email)), re.I)
    # (Only the archive is read before: the moved home's tiers are read again once forget publishes.)
    assert _scan(moved, traces, skip=tuple(p.name for p in moved.iterdir() if p.name != "raw"))

    said = _cli(env, moved, "forget", login.upper())

    assert "raw archive: 0 rows" not in said, said
    assert _scan(moved, traces) == []
