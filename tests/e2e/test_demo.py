"""`metrics-etl demo` keeps every file in the demo's own home, never the deployment's, and the
query it prints at the end answers."""

import os
import shlex
import subprocess
import sys
from pathlib import Path

import duckdb

CLI = str(Path(sys.executable).parent / "metrics-etl")


def test_the_demo_writes_only_its_own_home_and_its_printed_query_answers(tmp_path):
    deployment = tmp_path / "deployment"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SERVICE_", "WAREHOUSE_", "METRICS_", "DAGSTER_"))}
    # A deployment configured in the same shell: the demo must not touch it.
    env |= {
        "XDG_DATA_HOME": str(tmp_path / "share"),
        "METRICS_HOME": str(deployment),
        "DAGSTER_HOME": str(deployment / "dagster"),
        "WAREHOUSE_PATH": str(deployment / "w.duckdb"),
    }
    done = subprocess.run(
        [CLI, "demo", "--days", "3", "--users", "20", "--repos", "2"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    home = tmp_path / "share" / "metrics-etl-demo"
    assert not deployment.exists(), "the demo touched the deployment's home"
    assert not list(tmp_path.glob("data*")), "the demo wrote into the working directory"
    for name in ("warehouse.duckdb", "serving.duckdb", "report.html", "dagster/dagster.yaml", "token"):
        assert (home / name).exists(), name
    assert list((home / "logs").glob("run-*.log"))
    # Teams and seats (extensions) land and are shown: in the summary and on the page.
    assert "teams in the last 28 days" in done.stdout and "seats of acme on " in done.stdout, done.stdout[-3000:]
    # The emulator's records are all declared: the summary names no field beyond the schema.
    assert "fields beyond the schema" not in done.stdout, done.stdout[-3000:]
    page = (home / "report.html").read_text()
    assert '<tr class="team-row"' in page and '<tr class="seat-row"' in page and '<tr class="surface-row"' in page
    # The headline figures, printed and on the page, say which scope they are of.
    (headline,) = [line for line in done.stdout.splitlines() if line.startswith("headline, ")]
    assert headline.startswith("headline, enterprise acme-corp, last 28 days"), headline
    assert "Headline figures of <strong>enterprise acme-corp</strong>" in page
    # bi.reconciliation explains every difference between the demo's reports.
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        unexplained = conn.execute(
            "SELECT count(*) FROM bi.reconciliation"
            " WHERE difference <> 0 AND (reason IS NULL OR status = 'unexplained')"
        ).fetchone()
        # What the assistant cost (issue 45): the bill's net of the newest 28 days, printed and on the page.
        (net,) = conn.execute(
            "SELECT sum(net_amount) FROM bi.cost_daily WHERE scope = 'enterprise'"
            " AND day > (SELECT max(day) - 28 FROM bi.cost_daily WHERE scope = 'enterprise')"
        ).fetchone()
    assert unexplained == (0,)
    (cost,) = [line for line in done.stdout.splitlines() if line.startswith("cost, enterprise acme-corp, ")]
    assert f"${net:,.2f} net" in cost, cost
    assert '<section class="card" id="cost"><h2>Cost</h2>' in page
    (query_line,) = [line for line in done.stdout.splitlines() if line.startswith("query it: ")]
    words = shlex.split(query_line.removeprefix("query it: "))  # run as printed, the program's name too
    answered = subprocess.run(words, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert answered.returncode == 0, answered.stderr
    assert "Codex" in answered.stdout or "Claude" in answered.stdout, answered.stdout
