"""The pre-generated report file: written once, described by its sidecar, same bytes as served."""

from __future__ import annotations

import hashlib
import json
from datetime import date, timedelta
from pathlib import Path

from emulator.reportdata import ReportData
from emulator.reportfile import report_file_meta, sidecar_path, write_report_file

DAY = date(2026, 10, 1)


def test_file_holds_every_user_of_every_day_as_generated(tmp_path: Path) -> None:
    path = write_report_file(tmp_path / "users.ndjson", seed=3, users=30, day=DAY, days=2)
    data = ReportData(seed=3, users=30, org="acme", enterprise="acme-corp", first_day=DAY - timedelta(days=60))
    expected = b"".join(
        data.user_lines(
            scope="organization", days=[DAY, DAY + timedelta(days=1)], completeness_for=lambda _: 1.0, start=0, stop=30
        )
    )
    body = path.read_bytes()
    assert body == expected
    assert [json.loads(line)["day"] for line in body.splitlines()] == [DAY.isoformat()] * 30 + [
        (DAY + timedelta(days=1)).isoformat()
    ] * 30


def test_sidecar_records_parameters_size_lines_and_sha256(tmp_path: Path) -> None:
    path = write_report_file(tmp_path / "users.ndjson", seed=3, users=25, day=DAY, scope="enterprise")
    meta = report_file_meta(path)
    body = path.read_bytes()
    assert meta["sha256"] == hashlib.sha256(body).hexdigest()
    assert meta["bytes"] == len(body)
    assert meta["lines"] == body.count(b"\n") == 25 + 12
    assert (meta["seed"], meta["users"], meta["day"], meta["scope"]) == (3, 25, DAY.isoformat(), "enterprise")
    assert not list(tmp_path.glob("*.partial"))


def test_second_call_with_same_parameters_does_not_rewrite(tmp_path: Path) -> None:
    path = write_report_file(tmp_path / "users.ndjson", seed=3, users=20, day=DAY)
    first = path.stat().st_mtime_ns, sidecar_path(path).stat().st_mtime_ns
    again = write_report_file(tmp_path / "users.ndjson", seed=3, users=20, day=DAY)
    assert again == path
    assert (path.stat().st_mtime_ns, sidecar_path(path).stat().st_mtime_ns) == first


def test_changed_parameters_rewrite_the_file(tmp_path: Path) -> None:
    path = write_report_file(tmp_path / "users.ndjson", seed=3, users=20, day=DAY)
    before = path.read_bytes()
    write_report_file(tmp_path / "users.ndjson", seed=4, users=20, day=DAY)
    assert path.read_bytes() != before
    assert report_file_meta(path)["seed"] == 4


def test_file_of_the_wrong_size_is_written_again(tmp_path: Path) -> None:
    path = write_report_file(tmp_path / "users.ndjson", seed=3, users=20, day=DAY)
    whole = path.read_bytes()
    path.write_bytes(whole[: len(whole) // 2])
    write_report_file(tmp_path / "users.ndjson", seed=3, users=20, day=DAY)
    assert path.read_bytes() == whole


def test_many_users_are_written_in_user_chunks_each_with_all_days(tmp_path: Path) -> None:
    users, days = 2_100, [DAY, DAY + timedelta(days=1)]
    path = write_report_file(tmp_path / "users.ndjson", seed=5, users=users, day=DAY, days=2)
    data = ReportData(seed=5, users=users, org="acme", enterprise="acme-corp", first_day=DAY - timedelta(days=60))

    def lines(start: int, stop: int) -> bytes:
        return b"".join(
            data.user_lines(scope="organization", days=days, completeness_for=lambda _: 1.0, start=start, stop=stop)
        )

    assert path.read_bytes() == lines(0, 2_000) + lines(2_000, users)
    assert report_file_meta(path)["lines"] == users * 2
