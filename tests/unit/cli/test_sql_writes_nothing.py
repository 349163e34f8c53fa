"""`metrics-etl sql` changes no file, whatever the statement: a property over a list of hostile
statements (every attack found is added to it) and over wrappers composed around statements that
write. After each, the list of files under the data home and the temporary directory, and each
one's size, modification time and content, are what they were. Also the shell's bounds (time,
memory, spill) and the reads that must still answer, PIVOT without IN among them."""

from __future__ import annotations

import hashlib
import re
import tempfile
import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipelines.cli import cli
from tests.unit.cli.conftest import LAKE_TABLE
from tests.unit.cli.test_sql import READ_ONLY

# {lake_file}: a Parquet file a bi view reads; {table}: a hive-partitioned table of the lake;
# {lake}, {home}, {serving}: the lake, the data home, the serving database.
WRITES = [
    "COPY (SELECT * REPLACE (999999 AS job_starts) FROM read_parquet('{lake_file}')) TO '{lake_file}'",
    "COPY (SELECT 1 AS x, 1 AS p) TO '{table}' (PARTITION_BY (p), OVERWRITE true)",
    "COPY (SELECT 1 AS x, 1 AS p) TO '{table}' (PARTITION_BY (p), OVERWRITE_OR_IGNORE true)",
    "COPY (SELECT 1 AS n) TO '{lake}/new.parquet' (FORMAT parquet)",
    "COPY (SELECT 1 AS n) TO '{serving}.tmp/spilled.csv'",
    "COPY bi.agents TO '{lake}/agents.csv'",
    "COPY FROM DATABASE serving TO memory",
    "EXPORT DATABASE '{lake}/export'",
    "CREATE TEMP TABLE t AS SELECT * FROM bi.agents",
    "CREATE TABLE temp.main.t AS SELECT 1 AS n",
    "CREATE TEMP VIEW v AS SELECT 1 AS n",
    "CREATE TEMP MACRO m() AS TABLE SELECT 1 AS n",
    "CREATE MACRO m(x) AS x + 1",
    "CREATE TEMP SEQUENCE s",
    "CREATE TYPE mood AS ENUM ('a', 'b')",
    "CREATE PERSISTENT SECRET s (TYPE s3, KEY_ID 'k', SECRET 'v')",
    "CREATE SECRET s (TYPE s3, KEY_ID 'k', SECRET 'v')",
    "INSERT INTO bi.agents VALUES ('d-4', 'Delta', 1)",
    "DELETE FROM bi.agents",
    "UPDATE bi.agents SET job_starts = 0",
    "DROP VIEW bi.agents",
    "ALTER VIEW bi.agents RENAME TO gone",
    "ATTACH '{lake}/new.duckdb' AS n",
    "ATTACH '{home}/warehouse.duckdb' AS w (READ_WRITE)",
    "DETACH serving",
    "CHECKPOINT",
    "FORCE CHECKPOINT",
    "CALL checkpoint()",
    "CALL force_checkpoint()",
    "SELECT * FROM checkpoint()",
    "CALL enable_logging(storage = 'file', storage_path = '{lake}/log')",
    "SELECT * FROM enable_logging(storage = 'file', storage_path = '{lake}/log')",
    "CALL enable_profiling()",
    "CALL truncate_duckdb_logs()",
    "CALL import_database('{lake}')",
    "VACUUM",
    "VACUUM ANALYZE bi.agents",
    "LOAD parquet",
    "INSTALL httpfs",
    "UPDATE EXTENSIONS",
    "USE temp",
    "PRAGMA enable_profiling",
    "PRAGMA profiling_output = '{lake}/profile.json'",
    "PRAGMA enable_checkpoint_on_shutdown",
    "PRAGMA force_checkpoint",
    "PRAGMA version",
    "SET profiling_output = '{lake}/profile.json'",
    "SET temp_directory = '{lake}'",
    "SET max_temp_directory_size = '1TB'",
    "SET memory_limit = '100GB'",
    "RESET memory_limit",
    "SET log_query_path = '{lake}/queries.log'",
    "SET enable_external_access = true",
    "SET lock_configuration = false",
    "SET allowed_directories = ['{home}/']",
    "PREPARE p AS COPY (SELECT 1) TO '{lake}/prepared.csv'",
    "PREPARE p AS SELECT 1",
    "EXECUTE p",
    "DEALLOCATE p",
    "BEGIN TRANSACTION",
]
# Around a statement: EXPLAIN and its options (ANALYZE runs it), spellings, comments, company.
WRAPPERS = [
    "{}",
    "EXPLAIN {}",
    "EXPLAIN ANALYZE {}",
    "explain analyze {}",
    "EXPLAIN ANALYSE {}",
    "EXPLAIN /* a comment */ ANALYZE {}",
    "EXPLAIN\nANALYZE\n{}",
    "EXPLAIN (ANALYZE) {}",
    "EXPLAIN (ANALYZE, FORMAT json) {}",
    "EXPLAIN (FORMAT json, ANALYZE) {}",
    "EXPLAIN (ANALYZE true) {}",
    "EXPLAIN ANALYZE ({})",
    "/* first */ {}",
    "-- a comment\n{}",
    "{};",
    "SELECT 1 AS first; {}",
    "{}; SELECT 1 AS after",
    "PREPARE p AS {}; EXECUTE p",
    "WITH c AS (SELECT 1) {}",
    "SELECT * FROM query('{}')",
    "SELECT * FROM ({})",
    "CREATE TEMP MACRO w() AS TABLE ({}); SELECT * FROM w()",
    "DESCRIBE {}",
    "SUMMARIZE {}",
    "SHOW {}",
    "FROM ({})",
    "PIVOT ({}) ON x USING count(*)",
    "SELECT EXISTS ({}) AS e",
    "SET VARIABLE v = ({})",
    "CALL {}",
    "EXPLAIN ANALYZE WITH c AS MATERIALIZED (SELECT 1) {}",
    "SHOW TABLES; {}",  # the shell answers SHOW TABLES itself: what follows is still judged
    "SELECT * FROM agents; {}",  # a name without its schema: the hint reads the catalog, then the shell stops
]
HOSTILE = [
    *WRITES,
    *(wrapper.format(write) for wrapper in WRAPPERS[1:12] for write in WRITES[:3]),
    "EXPLAIN ANALYZE SELECT * FROM checkpoint()",
    "EXPLAIN ANALYZE CALL checkpoint()",
    "EXPLAIN ANALYZE PRAGMA force_checkpoint",
    "EXPLAIN ANALYZE SET VARIABLE x = 1",
    "EXPLAIN ANALYZE EXPORT DATABASE '{lake}/export'",
    "EXPLAIN ANALYZE ATTACH '{lake}/new.duckdb'",
    "EXPLAIN ANALYZE INSERT INTO bi.agents VALUES ('d-4', 'Delta', 1)",
    "SET VARIABLE x = (SELECT count(*) FROM checkpoint())",
    "CREATE TABLE p AS PIVOT bi.agents ON agent_name USING sum(job_starts)",
    "EXPLAIN ANALYZE CREATE TABLE p AS PIVOT bi.agents ON agent_name USING sum(job_starts)",
    "SELECT 1 AS first; COPY (SELECT 1) TO '{lake}/second.csv'",
    "SHOW TABLES; COPY (SELECT 1) TO '{lake}/after-show.csv'",
    "show /* the views */ tables; CHECKPOINT",
    "SELECT * FROM agent; COPY (SELECT 1) TO '{lake}/after-hint.csv'",
    "EXPLAIN (ANALYZE, OUTPUT '{lake}/profile.json') SELECT 1",
    "EXPLAIN (ANALYZE, FORMAT json, PROFILING_OUTPUT '{lake}/profile.json') SELECT 1",
    "SELECT * FROM json_execute_serialized_sql(json_serialize_sql('SELECT 1'))",
    "SELECT * FROM read_csv('{lake_file}', store_rejects = true)",
    "SELECT * FROM read_duckdb('{home}/warehouse.duckdb')",
    "SELECT * FROM read_duckdb('{lake}/new.duckdb')",
    "FROM '{lake}/new.duckdb'",
    # A PIVOT without IN runs its source to find its columns, before the plan could be judged.
    "PIVOT (SELECT 1 AS x, 2 AS y FROM enable_profiling(format := 'json', save_location := '{lake}/p.json')) "
    "ON x USING count(*)",
    "PIVOT (SELECT 1 AS x, 2 AS y FROM force_checkpoint()) ON x USING count(*)",
    'WITH c AS (SELECT 1 AS x FROM main."checkpoint"()) PIVOT c ON x',
    "PIVOT (FROM query('SELECT 1 AS x FROM enable_logging(storage := ''file'', storage_path := ''{lake}/l'')')) ON x",
    "EXPLAIN PIVOT (SELECT 1 AS x FROM bi.agents, truncate_duckdb_logs()) ON x",
    "PIVOT (SELECT 1 AS x FROM FORCE_CHECKPOINT /* a comment */ ()) ON x",
    "UNPIVOT (SELECT 1 AS x FROM enable_profiling(save_location := '{lake}/u.json')) ON COLUMNS(*) INTO NAME k VALUE v",
    "SELECT * FROM query('SELECT * FROM enable_profiling(save_location := ''{lake}/q.json'')')",
    "SELECT * FROM query(getvariable('q'))",
    "SELECT * FROM query('FROM enable_' || 'logging(storage := ''file'', storage_path := ''{lake}/l'')')",
]


def _files(root: Path) -> dict[str, tuple[int, int, str]]:
    """Every file and directory under root: size, modification time, content digest. TMPDIR's
    own time is left out: the shell's private spill directory comes and goes in it."""
    found = {}
    for path in sorted(root.rglob("*")):
        if path == root / "tmp":
            continue
        stat = path.lstat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""
        found[str(path.relative_to(root))] = (stat.st_size, stat.st_mtime_ns, digest)
    return found


def _spelled(statement: str, home: Path) -> str:
    lake = home / "lake"
    return statement.format(
        home=home,
        lake=lake,
        lake_file=lake / "agents.parquet",
        table=lake / LAKE_TABLE,
        serving=home / "serving.duckdb",
    )


def _one_line_or_rows(done: Result) -> None:
    """A statement answers, or fails in one line: never a traceback."""
    assert "Traceback" not in done.output
    assert done.exception is None or isinstance(done.exception, SystemExit)
    if done.exit_code:
        assert len(done.stderr.splitlines()) == 1, done.stderr


@pytest.mark.parametrize("statement", HOSTILE)
def test_a_hostile_statement_changes_no_file_of_the_home_or_the_temporary_directory(
    runner: CliRunner, home: Path, statement: str
) -> None:
    # home is tmp_path: the serving database, the lake, the warehouse, the token, TMPDIR, HOME.
    before = _files(home)
    done = runner.invoke(cli, ["sql", "--format", "csv", "--", _spelled(statement, home)])
    _one_line_or_rows(done)
    assert _files(home) == before, done.output


@pytest.mark.parametrize(
    "statement",
    [
        "EXPLAIN ANALYZE COPY (SELECT * REPLACE (999999 AS job_starts) FROM read_parquet('{lake_file}')) "
        "TO '{lake_file}'",
        "EXPLAIN ANALYZE COPY (SELECT 1 AS x, 1 AS p) TO '{table}' (PARTITION_BY (p), OVERWRITE true)",
        "EXPLAIN ANALYZE CREATE TEMP TABLE t AS SELECT 1 AS n",
        "EXPLAIN (ANALYZE, FORMAT json) COPY (SELECT 1) TO '{lake}/x.csv'",
        "EXPLAIN COPY (SELECT 1) TO '{lake}/x.csv'",
    ],
)
def test_explain_analyze_of_a_write_is_refused_in_one_line_before_it_runs(
    runner: CliRunner, home: Path, statement: str
) -> None:
    done = runner.invoke(cli, ["sql", _spelled(statement, home)])
    assert done.exit_code == 1 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert (
        line == f"{READ_ONLY}EXPLAIN takes a query only (SELECT, FROM, WITH, PIVOT, CALL): EXPLAIN ANALYZE runs "
        "what it wraps)"
    )


def test_the_lake_table_the_issue_emptied_still_answers_after_every_attack(runner: CliRunner, home: Path) -> None:
    count = [
        "sql",
        "--format",
        "csv",
        "SELECT count(*) AS n, max(daily_active_users) AS most FROM "
        "core.user_daily_totals UNION ALL SELECT count(*), max(job_starts) FROM bi.agents",
    ]
    before = runner.invoke(cli, count).stdout
    assert before.splitlines() == ["n,most", "120,6", "3,9"]
    for statement in HOSTILE:
        runner.invoke(cli, ["sql", "--", _spelled(statement, home)])
    assert runner.invoke(cli, count).stdout == before


_WRITE = st.sampled_from(WRITES)
_WRAPPER = st.sampled_from(WRAPPERS)


@st.composite
def _wrapped_writes(draw: st.DrawFn) -> str:
    """A write inside up to three wrappers, in any letter case."""
    statement = draw(_WRITE)
    for wrapper in draw(st.lists(_WRAPPER, max_size=3)):
        statement = wrapper.format(statement.replace("'", "''") if "query('" in wrapper else statement)
    spelled = draw(st.sampled_from([statement, statement.lower(), statement.upper()]))
    return re.sub(r"\{(\w+)\}", lambda name: name.group(0).lower(), spelled)  # paths keep their case


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(statement=_wrapped_writes())
def test_no_wrapper_around_a_write_changes_a_file(runner: CliRunner, home: Path, statement: str) -> None:
    before = _files(home)
    done = runner.invoke(cli, ["sql", "--format", "csv", "--", _spelled(statement, home)])
    _one_line_or_rows(done)
    assert _files(home) == before, (statement, done.output)


@pytest.mark.parametrize(
    ("statement", "first_line"),
    [
        ("PIVOT bi.agents ON agent_name USING sum(job_starts) ORDER BY agent_id", "agent_id,Alpha,Bravo,Charlie"),
        ("PIVOT bi.agents ON agent_name IN ('Alpha') USING sum(job_starts) ORDER BY agent_id", "agent_id,Alpha"),
        ("FROM bi.agents ORDER BY agent_id", "agent_id,agent_name,job_starts"),
        ("WITH a AS (FROM bi.agents) SELECT count(*) AS n FROM a", "n"),
        ("EXPLAIN SELECT * FROM bi.agents", "explain_key,explain_value"),
        ("EXPLAIN ANALYZE SELECT count(*) FROM core.user_daily_totals", "explain_key,explain_value"),
        ("EXPLAIN (ANALYZE, FORMAT json) SELECT 1", "explain_key,explain_value"),
        ("EXPLAIN (FORMAT 'yaml') /* the plan */ SELECT 1", "explain_key,explain_value"),
        ("EXPLAIN (SELECT 1)", "explain_key,explain_value"),
        ("EXPLAIN PIVOT bi.agents ON agent_name USING sum(job_starts)", "explain_key,explain_value"),
        ("CALL pragma_table_info('bi.agents')", "cid,name,type,notnull,dflt_value,pk"),
        ("DESCRIBE bi.agents", "column_name,column_type,null,key,default,extra"),
        (
            "SUMMARIZE bi.agents",
            "column_name,column_type,min,max,approx_unique,avg,std,q25,q50,q75,count,null_percentage",
        ),
        ("SELECT * FROM query('SELECT 42 AS answer')", "answer"),
        ("SELECT count(*) AS files FROM glob('{lake}/**/*.parquet')", "files"),
        ("SELECT * FROM generate_series(1, 2) g, unnest([3]) u", "g,u"),
        ("SET VARIABLE top = (SELECT max(job_starts) FROM bi.agents); SELECT getvariable('top') AS top", "top"),
    ],
)
def test_reads_still_answer_pivot_without_in_among_them(
    runner: CliRunner, home: Path, statement: str, first_line: str
) -> None:
    before = _files(home)
    done = runner.invoke(cli, ["sql", "--format", "csv", "--", _spelled(statement, home)])
    assert done.exit_code == 0, done.output
    assert done.stdout.splitlines()[0] == first_line and len(done.stdout.splitlines()) > 1
    assert _files(home) == before


def test_pivot_without_in_prints_its_rows(runner: CliRunner) -> None:
    done = runner.invoke(
        cli, ["sql", "--format", "csv", "PIVOT bi.agents ON agent_name USING sum(job_starts) ORDER BY agent_id"]
    )
    assert done.exit_code == 0, done.output
    assert done.stdout.splitlines() == ["agent_id,Alpha,Bravo,Charlie", "a-1,9,,", "b-2,,,", "c-3,,,3"]


LONG = "SELECT count(*) FROM range(1000000) a, range(1000000) b WHERE a.range + b.range = -1"


@pytest.mark.parametrize("fmt", ["csv", "table"])
def test_a_statement_past_the_time_limit_is_interrupted_in_one_line(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    monkeypatch.setenv("METRICS_SQL_TIMEOUT", "0.5")
    started = time.monotonic()
    done = runner.invoke(cli, ["sql", "--format", fmt, LONG])
    assert time.monotonic() - started < 30  # unbounded, it would run for hours
    assert done.exit_code == 1 and done.stdout == ""
    assert done.stderr.splitlines() == [
        "metrics-etl sql: the query ran past the SQL shell's time limit of 0.5 s (METRICS_SQL_TIMEOUT): "
        "narrow it, or raise the limit"
    ]


def test_rows_streamed_past_the_time_limit_are_interrupted_too(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("METRICS_SQL_TIMEOUT", "0.5")
    done = runner.invoke(cli, ["sql", "--format", "tsv", "SELECT a.range FROM range(1000000) a, range(1000000) b"])
    assert done.exit_code == 1
    assert done.stderr.splitlines()[-1].startswith("metrics-etl sql: the query ran past the SQL shell's time limit")
    assert len(done.stderr.splitlines()) == 1


def test_at_the_prompt_a_statement_past_the_time_limit_is_one_line_then_the_prompt(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pipelines.cli import _sql

    monkeypatch.setattr(_sql, "_stdin_is_terminal", lambda: True)
    monkeypatch.setenv("METRICS_SQL_TIMEOUT", "0.5")
    done = runner.invoke(cli, ["sql", "--format", "csv"], input=f"{LONG};\nSELECT 1 AS after;\n")
    assert done.exit_code == 0
    assert done.stderr.splitlines() == [
        "the query ran past the SQL shell's time limit of 0.5 s (METRICS_SQL_TIMEOUT): narrow it, or raise the limit"
    ]
    assert "after\n1\n" in done.stdout


HUNGRY = "SELECT count(*) FROM (SELECT range % 1000000 AS k, list(range) AS l FROM range(20000000) GROUP BY k)"


def test_a_statement_over_the_memory_limit_without_spill_fails_in_one_line(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch, home: Path
) -> None:
    monkeypatch.setenv("METRICS_SQL_MEMORY_LIMIT", "50MB")
    monkeypatch.setenv("METRICS_SQL_SPILL_LIMIT", "0")
    before = _files(home)
    done = runner.invoke(cli, ["sql", HUNGRY])
    assert done.exit_code == 1
    assert done.stderr.splitlines() == [
        "metrics-etl sql: the query needed more than the SQL shell's memory limit of 47.7 MiB "
        "(METRICS_SQL_MEMORY_LIMIT) with its spill limit of 0 bytes (METRICS_SQL_SPILL_LIMIT): "
        "narrow it, or raise a limit"
    ]
    assert _files(home) == before


def test_spill_past_its_limit_fails_in_one_line_and_leaves_no_file(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch, home: Path
) -> None:
    monkeypatch.setenv("METRICS_SQL_MEMORY_LIMIT", "50MB")
    monkeypatch.setenv("METRICS_SQL_SPILL_LIMIT", "20MB")
    before = _files(home)
    done = runner.invoke(cli, ["sql", HUNGRY])
    assert done.exit_code == 1
    (line,) = done.stderr.splitlines()
    assert line.endswith("with its spill limit of 19.1 MiB (METRICS_SQL_SPILL_LIMIT): narrow it, or raise a limit")
    assert _files(home) == before


def test_spill_goes_to_a_private_temporary_directory_removed_after_never_beside_the_database(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch, home: Path
) -> None:
    monkeypatch.setenv("METRICS_SQL_MEMORY_LIMIT", "50MB")
    monkeypatch.setenv("METRICS_SQL_SPILL_LIMIT", "2GB")
    before = _files(home)
    done = runner.invoke(cli, ["sql", "--format", "csv", HUNGRY])
    assert done.exit_code == 0, done.output
    assert done.stdout.splitlines() == ["count_star()", "1000000"]
    assert _files(home) == before  # no serving.duckdb.tmp/, nothing left in TMPDIR


@pytest.mark.parametrize(
    ("name", "value", "line"),
    [
        ("METRICS_SQL_TIMEOUT", "0", "METRICS_SQL_TIMEOUT must be above 0"),
        ("METRICS_SQL_TIMEOUT", "soon", "METRICS_SQL_TIMEOUT must be a number of seconds above 0, not 'soon'"),
        (
            "METRICS_SQL_MEMORY_LIMIT",
            "lots",
            "METRICS_SQL_MEMORY_LIMIT must be a size such as 512MB or 2GiB, not 'lots'",
        ),
        ("METRICS_SQL_MEMORY_LIMIT", "0", "METRICS_SQL_MEMORY_LIMIT must be above 0"),
        ("METRICS_SQL_SPILL_LIMIT", "-1GB", "METRICS_SQL_SPILL_LIMIT must be a size such as 512MB or 2GiB, not '-1GB'"),
    ],
)
def test_a_bad_bound_is_one_line_naming_the_variable(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch, name: str, value: str, line: str
) -> None:
    monkeypatch.setenv(name, value)
    done = runner.invoke(cli, ["sql", "SELECT 1"])
    assert done.exit_code == 1
    assert done.stderr.splitlines() == [f"metrics-etl sql: configuration: {line}"]


def test_no_temporary_directory_to_spill_into_is_one_line_saying_what_to_set(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "absent"))
    done = runner.invoke(cli, ["sql", "SELECT 1"])
    assert done.exit_code == 1
    assert done.stderr.splitlines() == [
        f"metrics-etl sql: cannot make a spill directory in {tmp_path / 'absent'}: No such file or directory "
        "(set TMPDIR to a writable directory, or METRICS_SQL_SPILL_LIMIT=0 for no spill)"
    ]
    monkeypatch.setenv("METRICS_SQL_SPILL_LIMIT", "0")
    assert runner.invoke(cli, ["sql", "SELECT 1"]).exit_code == 0


@pytest.mark.parametrize(
    ("statement", "reason"),
    [
        ("CALL checkpoint()", "the table function checkpoint is refused"),
        ("EXPLAIN ANALYZE SELECT * FROM truncate_duckdb_logs()", "the table function truncate_duckdb_logs is refused"),
        ("SET VARIABLE x = (SELECT count(*) FROM checkpoint())", "the table function checkpoint is refused"),
        (
            "PIVOT (SELECT 1 AS x, 2 AS y FROM force_checkpoint()) ON x USING count(*)",
            "the table function force_checkpoint is refused",
        ),
        (
            "PIVOT (SELECT 1 AS x FROM enable_profiling(save_location := 'p.json')) ON x",
            "the table function enable_profiling is refused",
        ),
        ('WITH c AS (SELECT 1 AS x FROM main."checkpoint"()) PIVOT c ON x', "the table function checkpoint is refused"),
        (
            "PIVOT (SELECT 1 AS x FROM FORCE_CHECKPOINT /* a comment */ ()) ON x",
            "the table function force_checkpoint is refused",
        ),
        # DuckDB binds these while it plans (EXPLAIN): they act before any plan could be read.
        ("SELECT * FROM enable_profiling()", "the table function enable_profiling is refused"),
        ("SELECT * FROM disable_logging()", "the table function disable_logging is refused"),
        (
            "UNPIVOT (SELECT 1 AS x FROM enable_logging()) ON COLUMNS(*) INTO NAME k VALUE v",
            "the table function enable_logging is refused",
        ),
        ("SELECT * FROM query('SELECT * FROM enable_profiling()')", "the table function enable_profiling is refused"),
        (
            "SELECT * FROM query($$FROM query('FROM force_checkpoint()')$$)",
            "the table function force_checkpoint is refused",
        ),
        (
            "SELECT * FROM query(getvariable('q'))",
            "query() takes one literal string here: the SQL of any other is bound before it can be judged",
        ),
        (
            "SELECT * FROM query('SELECT * FROM enable_' || 'profiling()')",
            "query() takes one literal string here: the SQL of any other is bound before it can be judged",
        ),
        ("PREPARE p AS SELECT 1", "PREPARE statements are refused"),
        ("CREATE TEMP MACRO m() AS 1", "CREATE statements are refused"),
        (
            "PRAGMA version",
            "PRAGMA statements are refused: SHOW TABLES, DESCRIBE <view> and FROM pragma_table_info('<view>') read",
        ),
        (
            "EXPLAIN (ANALYZE) COPY (SELECT 1) TO 'x.csv'",
            "EXPLAIN takes a query only (SELECT, FROM, WITH, PIVOT, CALL): EXPLAIN ANALYZE runs what it wraps",
        ),
    ],
)
def test_a_refusal_names_what_was_refused(runner: CliRunner, statement: str, reason: str) -> None:
    done = runner.invoke(cli, ["sql", statement])
    assert done.exit_code == 1
    assert done.stderr.splitlines() == [f"{READ_ONLY}{reason})"]


def test_a_value_built_outside_duckdb_s_buffer_pool_is_bounded_too(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    # DuckDB's memory_limit does not hold this 1 GB string; the process's bound does.
    monkeypatch.setenv("METRICS_SQL_MEMORY_LIMIT", "100MB")
    done = runner.invoke(cli, ["sql", "SELECT length(repeat('x', 1000000000)) AS n"])
    assert done.exit_code == 1
    assert done.stderr.splitlines() == [
        "metrics-etl sql: the query needed more than the SQL shell's memory limit of 95.4 MiB "
        "(METRICS_SQL_MEMORY_LIMIT) with its spill limit of 4 GiB (METRICS_SQL_SPILL_LIMIT): "
        "narrow it, or raise a limit"
    ]
    assert runner.invoke(cli, ["sql", "--format", "csv", "SELECT length(repeat('x', 1000)) AS n"]).stdout == "n\n1000\n"
