"""`make dev` (scripts/dev.sh) as a developer runs it: started, then stopped by Ctrl-C.

The script runs in a session of its own, so its processes are found wherever they put their
process groups, and a Ctrl-C is SIGINT to its process group, as a terminal sends it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

# "Within seconds" of a stop signal: alone, not beside another busy worker.
pytestmark = pytest.mark.serial

REPO = Path(__file__).resolve().parents[2]
STOP_SECONDS = 15  # the requirement: Ctrl-C or SIGTERM stops everything within seconds
START_SECONDS = 300  # dagster dev loads the definitions in three processes; slow on 2 busy cores


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _session(sid: int) -> dict[int, str]:
    """Live processes of a session (zombies are gone already, only not yet reaped), pid → command."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            state, _ppid, _pgid, session = (entry / "stat").read_text().rsplit(")", 1)[1].split()[:4]
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # it ended while we looked
            continue
        if int(session) == sid and state != "Z":
            found[int(entry.name)] = command[:160]
    return found


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return bool(response.status == 200)
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds the processes through /proc (Linux)")
@pytest.mark.timeout(START_SECONDS + STOP_SECONDS + 60)
@pytest.mark.parametrize(
    ("signum", "whole_group", "sigint_ignored", "exit_code"),
    [
        # Ctrl-C is how `make dev` ends: exit 0, so make reports no error.
        pytest.param(signal.SIGINT, True, False, 0, id="Ctrl-C"),
        # `kill`, an IDE's stop button, make passing on its own SIGTERM: the script alone is told.
        pytest.param(signal.SIGTERM, False, False, 143, id="SIGTERM to dev.sh"),
        # `make dev &` from a script: started with SIGINT ignored, which its children would inherit.
        pytest.param(signal.SIGTERM, False, True, 143, id="SIGTERM to dev.sh started in the background"),
    ],
)
def test_a_stop_signal_ends_dagster_dev_and_the_emulator_within_seconds_and_removes_their_credentials(
    tmp_path: Path, signum: signal.Signals, whole_group: bool, sigint_ignored: bool, exit_code: int
) -> None:
    home, port, scratch = tmp_path / "dev", _free_port(), tmp_path / "tmp"
    scratch.mkdir()
    # What an earlier version left in the home: the emulator's credentials and its app key.
    home.mkdir()
    leftovers = [home / "credentials.json", home / "credentials-app-key.pem"]
    for leftover in leftovers:
        leftover.write_text("{}")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SERVICE_", "DAGSTER_", "METRICS_", "WEBHOOK_"))}
    env |= {"METRICS_HOME": str(home), "DAGSTER_PORT": str(port), "TMPDIR": str(scratch)}
    log = tmp_path / "dev.log"
    with log.open("w") as out:
        script = subprocess.Popen(
            [str(REPO / "scripts" / "dev.sh")],
            cwd=REPO,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=(lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if sigint_ignored else None,
        )
    try:
        deadline = time.monotonic() + START_SECONDS
        while not _answers(f"http://127.0.0.1:{port}/server_info"):
            assert script.poll() is None, f"dev.sh ended (exit {script.returncode}): {log.read_text()[-3000:]}"
            assert time.monotonic() < deadline, f"not up after {START_SECONDS}s: {log.read_text()[-3000:]}"
            time.sleep(1)
        started = _session(script.pid)
        # The emulator's credentials are in a private directory of their own, not in the home.
        assert not any(leftover.exists() for leftover in leftovers)
        assert sorted(home.glob("credentials*")) == []
        (private,) = scratch.glob("metrics-etl-dev.*")
        assert private.stat().st_mode & 0o777 == 0o700
        assert sorted(f.name for f in private.iterdir()) == ["credentials-app-key.pem", "credentials.json"]
        assert "superseded" not in log.read_text(), "dagster dev's SupersessionWarning is shown"
        assert any("dagster_webserver" in c for c in started.values()), started
        assert any("emulator" in c for c in started.values()), started

        (os.killpg if whole_group else os.kill)(script.pid, signum)
        interrupted = time.monotonic()
        while (left := _session(script.pid)) and time.monotonic() - interrupted < STOP_SECONDS:
            script.poll()  # reaps dev.sh once it ends
            time.sleep(0.5)
        seconds = time.monotonic() - interrupted
        outcome = f"{len(left)} of {len(started)} processes still running" if left else f"all {len(started)} ended"
        print(f"{signum.name} to dev.sh: {outcome} after {seconds:.1f} s")
        assert left == {}, f"still running {seconds:.0f}s after {signum.name}: {left}\n{log.read_text()[-3000:]}"
        assert script.wait(timeout=5) == exit_code
        assert list(scratch.glob("metrics-etl-dev.*")) == [], "the emulator's credentials outlived make dev"
    finally:
        for pid in _session(script.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        script.poll()
