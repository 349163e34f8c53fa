"""A spool that cannot be written: POSTs answer 500, /healthz 503, and no segment is left behind."""

from __future__ import annotations

import contextlib
import resource
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from .receiver import serving, signed_delivery

# Limits small enough for a 1 MB file system: the receiver wants room for one largest body.
FLAGS = ("--max-body-bytes", "65536", "--max-body-memory-bytes", "65536")


@contextlib.contextmanager
def _full_tmpfs(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """A 1 MB tmpfs filled to the last byte (needs root); yields (spool dir, the filler file)."""
    mount = tmp_path / "tmpfs"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here (needs root); the file-size-limit case covers the failed writes")
    try:
        spool = mount / "spool"
        spool.mkdir()
        filler = mount / "filler"
        with filler.open("wb", buffering=0) as f, contextlib.suppress(OSError):
            for _ in range(1024):  # 4 MB at most: the 1 MB file system is full long before
                f.write(b"\0" * 4096)
        yield spool, filler
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _limit_file_size() -> None:
    # Any write past 1 KB fails with EFBIG (Python ignores SIGXFSZ), as a full disk fails writes.
    resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))


def _post_twenty(url: str) -> list[int]:
    statuses = []
    for n in range(20):
        body, headers = signed_delivery(f"full-{n}", payload={"repository": {"full_name": "acme/w"}, "pad": "x" * 4096})
        statuses.append(httpx.post(f"{url}/webhooks", content=body, headers=headers, timeout=30).status_code)
    return statuses


def test_a_full_tmpfs_spool_answers_500_healthz_503_and_recovers_when_space_returns(tmp_path):
    with _full_tmpfs(tmp_path) as (spool, filler), serving(tmp_path, *FLAGS, spool=spool) as receiver:
        assert httpx.get(f"{receiver.url}/healthz").status_code == 503  # no room for one delivery
        assert _post_twenty(receiver.url) == [500] * 20
        assert httpx.get(f"{receiver.url}/healthz").status_code == 503
        assert sorted(p.name for p in spool.iterdir()) == []
        filler.unlink()
        assert httpx.get(f"{receiver.url}/healthz").status_code == 200
        body, headers = signed_delivery("after-space-returns")
        assert httpx.post(f"{receiver.url}/webhooks", content=body, headers=headers).status_code == 200
    assert receiver.output.count("No space left on device") <= 2, "counted lines, not one per failed write"


def test_spool_writes_failing_answer_500_healthz_503_and_leave_no_empty_segment(tmp_path):
    spool = tmp_path / "spool"
    with serving(tmp_path, *FLAGS, spool=spool, preexec_fn=_limit_file_size) as receiver:
        assert _post_twenty(receiver.url) == [500] * 20
        assert httpx.get(f"{receiver.url}/healthz").status_code == 503
        assert sorted(p.name for p in spool.iterdir()) == []
    assert receiver.output.count("File too large") <= 2, "counted lines, not one per failed write"
