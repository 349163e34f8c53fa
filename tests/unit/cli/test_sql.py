"""`metrics-etl sql` in-process: a query, SQL on stdin, the prompt, and the one-line failures, on a
small serving database shaped like the real one (views only, reading Parquet by absolute path)."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pipelines.cli import _sql, cli
from pipelines.cli._sql import PROMPT
from pipelines.cli._statements import statement_ends, without_terminator

READ_ONLY = "metrics-etl sql: the SQL shell is read-only: it reads the bi views and the lake's tables, nothing else ("


def _at_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    # CliRunner's stdin is never a terminal; the prompt is what a terminal gets.
    monkeypatch.setattr(_sql, "_stdin_is_terminal", lambda: True)


def _printing_to_a_terminal(monkeypatch: pytest.MonkeyPatch, columns: int = 200) -> None:
    # CliRunner's stdout is never a terminal; COLUMNS is how wide a shell says its terminal is.
    monkeypatch.setattr(_sql, "_stdout_is_terminal", lambda: True)
    monkeypatch.setenv("COLUMNS", str(columns))


# Wider than 100 columns of terminal, longer than a table's 40 rows.
WIDE = (
    "SELECT range AS n, 'organization' AS scope, 'acme-corp' AS scope_name, 'Claude (Anthropic)' AS agent_name, "
    "range * 7 AS agent_job_starts, range * 3 AS agent_sessions, range AS agent_users, 24 AS active_days "
    "FROM range(100)"
)
WIDE_COLUMNS = [
    "n",
    "scope",
    "scope_name",
    "agent_name",
    "agent_job_starts",
    "agent_sessions",
    "agent_users",
    "active_days",
]


def test_piped_every_row_and_column_prints_as_tab_separated_values(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "40")  # a pipe has no width: nothing is cut to fit one
    done = runner.invoke(cli, ["sql", WIDE])
    assert done.exit_code == 0, done.output
    rows = list(csv.reader(io.StringIO(done.stdout), delimiter="\t"))
    assert rows[0] == WIDE_COLUMNS
    assert rows[1:] == [
        [str(n), "organization", "acme-corp", "Claude (Anthropic)", str(n * 7), str(n * 3), str(n), "24"]
        for n in range(100)
    ]
    assert done.stderr == ""


def test_at_a_terminal_a_table_shows_every_column_that_fits_columns(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    _printing_to_a_terminal(monkeypatch, columns=200)
    done = runner.invoke(cli, ["sql", "--max-rows", "200", WIDE])
    assert done.exit_code == 0, done.output
    header = done.stdout.splitlines()[1]
    assert [cell.strip() for cell in header.strip("│").split("│")] == WIDE_COLUMNS
    assert "100 rows" in done.stdout and "shown" not in done.stdout and done.stderr == ""


def _boxes(text: str) -> list[tuple[list[str], list[list[str]]]]:
    """Each boxed table printed: its column names and its rows, as cells."""
    boxes: list[tuple[list[str], list[list[str]]]] = []
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("│").split("│")]
        if line.startswith("┌"):
            boxes.append(([], []))
        elif line.startswith("│") and not boxes[-1][0]:
            boxes[-1][0].extend(cells)
        elif line.startswith("│") and boxes[-1][1] is not None and any(boxes[-1][0]):
            boxes[-1][1].append(cells)
    return [(names, rows[1:]) for names, rows in boxes]  # rows[0]: the types


# The README's surfaces query, shaped: 98 columns wide as DuckDB draws it.
SURFACES = (
    "SELECT CASE WHEN range < 9 THEN 'enterprise' ELSE 'organization' END AS scope, 'acme-corp' AS scope_name, "
    "'Claude (Anthropic) ' || range AS surface_name, 20 + range AS days_used, range / 3 AS users_a_day, "
    "range * 2 AS most_users_in_a_day FROM range(18) ORDER BY range"
)


def test_at_an_80_column_terminal_every_column_shows_in_bands_that_begin_with_the_key_columns(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    # DuckDB's own table drops the middle columns to fit: surface_name, the one the reader asked about.
    piped = list(csv.reader(io.StringIO(runner.invoke(cli, ["sql", SURFACES]).stdout), delimiter="\t"))
    _printing_to_a_terminal(monkeypatch, columns=80)
    done = runner.invoke(cli, ["sql", SURFACES])
    assert done.exit_code == 0, done.output
    assert max(len(line) for line in done.stdout.splitlines()) <= 80
    boxes = _boxes(done.stdout)
    keys = ["scope", "scope_name", "surface_name"]
    assert len(boxes) > 1 and all(names[:3] == keys for names, _ in boxes)
    assert keys + [name for names, _ in boxes for name in names[3:]] == piped[0]
    for names, rows in boxes:  # each band's rows are the answer's rows, in order, every value whole
        assert [[row[piped[0].index(name)] for name in names] for row in piped[1:]] == rows
    assert done.stdout.splitlines()[-1] == f"  18 rows, 6 columns in {len(boxes)} bands"
    assert done.stderr == ""


def test_at_a_narrow_terminal_a_long_answer_shows_its_first_and_last_rows_in_every_band_and_how_to_see_all(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    _printing_to_a_terminal(monkeypatch, columns=80)
    done = runner.invoke(cli, ["sql", WIDE])
    assert done.exit_code == 0, done.output
    boxes = _boxes(done.stdout)
    assert [name for names, _ in boxes for name in names[1:]] == WIDE_COLUMNS[1:]
    for _, rows in boxes:
        assert [row[0] for row in rows] == [*map(str, range(20)), "·", *map(str, range(80, 100))]
    assert "100 rows (40 shown), 8 columns in" in done.stdout
    assert done.stderr.splitlines() == ["(--max-rows shows more rows; piped or with --format csv, every row)"]


_NAME = st.from_regex(r"[a-z][a-z_]{0,20}", fullmatch=True)
_TEXT = st.text(alphabet=st.sampled_from("abcxyz -_.()é日\n"), max_size=30)


@st.composite
def _answers(draw: st.DrawFn) -> tuple[str, list[str]]:
    """A query answering a few rows of text and number columns, and its column names."""
    names = draw(st.lists(_NAME, min_size=1, max_size=10, unique=True))
    numeric = [draw(st.booleans()) for _ in names]
    rows = draw(st.integers(min_value=1, max_value=4))
    values = [
        "("
        + ", ".join(
            str(draw(st.integers(-(10**9), 10**9))) if number else "'" + draw(_TEXT).replace("'", "''") + "'"
            for number in numeric
        )
        + ")"
        for _ in range(rows)
    ]
    columns = ", ".join(f'"{name}"' for name in names)
    return f"SELECT * FROM (VALUES {', '.join(values)}) AS t({columns})", names


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(answer=_answers(), columns=st.integers(min_value=30, max_value=160))
# A key column too wide to leave room for the widest other one was cut in one band, whole in another.
@example(
    answer=(
        "SELECT * FROM (VALUES ('', '', '')) AS t(\"a_____________\", \"a\", \"a_________\")",
        ["a_____________", "a", "a_________"],
    ),
    columns=30,
)
def test_at_any_terminal_width_a_table_fits_it_and_keeps_every_column(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch, answer: tuple[str, list[str]], columns: int
) -> None:
    from pipelines.cli._sql_bands import display_width

    query, names = answer
    _printing_to_a_terminal(monkeypatch, columns=columns)
    done = runner.invoke(cli, ["sql", query])
    assert done.exit_code == 0, done.output
    assert max(display_width(line) for line in done.stdout.splitlines()) <= columns, done.stdout
    boxes = _boxes(done.stdout)
    headers = [header for header, _ in boxes]
    keys = (
        len(headers[0])
        if len(headers) == 1
        else next(at for at in range(len(headers[0])) if len({tuple(header[at : at + 1]) for header in headers}) > 1)
    )
    shown = boxes[0][0][:keys] + [name for header, _ in boxes for name in header[keys:]]
    assert len(shown) == len(names)  # no column left out
    assert [name for name in shown if "…" not in name] == [
        name for name, seen in zip(names, shown, strict=True) if "…" not in seen
    ]


def test_a_query_prints_its_rows_as_a_table(runner: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    _printing_to_a_terminal(monkeypatch)
    done = runner.invoke(cli, ["sql", "SELECT agent_name, job_starts FROM bi.agents ORDER BY agent_id"])
    assert done.exit_code == 0, done.output
    lines = done.stdout.splitlines()
    assert lines[0].startswith("┌") and "agent_name" in lines[1] and "job_starts" in lines[1]
    rows = [line for line in lines if any(name in line for name in ("Alpha", "Bravo", "Charlie"))]
    assert len(rows) == 3 and "9" in rows[0] and "NULL" in rows[1]
    assert done.stderr == ""


def test_a_long_answer_shows_max_rows_of_it_and_says_how_many_there_are(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    _printing_to_a_terminal(monkeypatch)
    done = runner.invoke(cli, ["sql", "--max-rows", "10", "SELECT range AS n FROM range(1000)"])
    assert done.exit_code == 0, done.output
    assert "1000 rows" in done.stdout and "(10 shown)" in done.stdout


def test_csv_prints_a_header_and_every_row(runner: CliRunner) -> None:
    done = runner.invoke(cli, ["sql", "--format", "csv", "SELECT * FROM bi.agents ORDER BY agent_id"])
    assert done.exit_code == 0, done.output
    assert list(csv.reader(io.StringIO(done.stdout))) == [
        ["agent_id", "agent_name", "job_starts"],
        ["a-1", "Alpha", "9"],
        ["b-2", "Bravo", ""],
        ["c-3", "Charlie", "3"],
    ]


def test_json_prints_one_object_per_row(runner: CliRunner) -> None:
    done = runner.invoke(cli, ["sql", "--format", "json", "SELECT agent_id, job_starts FROM bi.agents ORDER BY 1"])
    assert done.exit_code == 0, done.output
    assert [json.loads(line) for line in done.stdout.splitlines()] == [
        {"agent_id": "a-1", "job_starts": 9},
        {"agent_id": "b-2", "job_starts": None},
        {"agent_id": "c-3", "job_starts": 3},
    ]


def test_without_a_query_the_sql_on_stdin_runs_statement_after_statement(runner: CliRunner) -> None:
    script = (
        "-- a file of sql/queries/ starts with its question\n"
        "SET VARIABLE wanted = 'Alpha';\n"
        "SELECT agent_id FROM bi.agents WHERE agent_name = getvariable('wanted');  -- the first answer\n"
        "SELECT 'a;b' AS literal\n;\n"
    )
    done = runner.invoke(cli, ["sql", "--format", "csv"], input=script)
    assert done.exit_code == 0, done.output
    assert done.stdout.splitlines() == ["agent_id", "a-1", "literal", "a;b"]


def test_at_the_prompt_statements_span_lines_and_a_failure_is_one_line_then_the_prompt_again(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    _at_a_terminal(monkeypatch)
    typed = (
        "SELECT agent_name\n"
        "FROM bi.agents\n"
        "WHERE agent_id = 'c-3';\n"
        "SELEC 1;\n"
        "\n"
        "SELECT count(*) AS agents FROM bi.agents;\n"
        ".quit\n"
        "SELECT 'never run';\n"
    )
    done = runner.invoke(cli, ["sql", "--format", "csv"], input=typed)
    assert done.exit_code == 0, done.output
    assert done.stderr.splitlines() == ['Parser Error: syntax error at or near "SELEC"']
    banner, typing = done.stdout.split("\n", 1)
    assert banner.endswith("(read-only). End a statement with ;  .quit or Ctrl-D leaves.")
    # Input is not echoed here; a prompt for each line typed: the statement's own, then "...>".
    more = "    ...> "
    assert typing == (
        f"{PROMPT}{more}{more}agent_name\nCharlie\n"  # three lines, one statement
        f"{PROMPT}"  # SELEC 1;
        f"{PROMPT}"  # the empty line
        f"{PROMPT}agents\n3\n"
        f"{PROMPT}"  # .quit, and the rest is never read
    )


def test_ctrl_d_leaves_the_prompt(runner: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    _at_a_terminal(monkeypatch)
    done = runner.invoke(cli, ["sql"], input="SELECT 1 AS one;\nSELECT 'unfinished'")
    assert done.exit_code == 0, done.output
    assert "one" in done.stdout and "unfinished" not in done.stdout and done.stderr == ""


@pytest.mark.parametrize(
    "statement",
    [
        "INSERT INTO bi.agents VALUES ('d-4', 'Delta', 1)",
        "UPDATE bi.agents SET job_starts = 0",
        "DELETE FROM bi.agents",
        "CREATE TABLE bi.copy AS SELECT * FROM bi.agents",
        "DROP VIEW bi.agents",
        "CREATE TEMP TABLE t AS SELECT 1 AS n",
        "SET threads = 1",
        "SET enable_external_access = true",
        "UPDATE EXTENSIONS",
    ],
)
def test_a_write_fails_in_one_line_saying_the_database_is_read_only(
    runner: CliRunner, serving: Path, statement: str
) -> None:
    before = serving.read_bytes()
    done = runner.invoke(cli, ["sql", statement])
    assert done.exit_code == 1
    (line,) = done.stderr.splitlines()
    assert line.startswith(READ_ONLY) and done.stdout == ""
    assert serving.read_bytes() == before


def test_a_sql_error_is_duckdb_s_first_meaningful_line_with_exit_1(runner: CliRunner) -> None:
    done = runner.invoke(cli, ["sql", "SELECT agent_name FROM bi.agent"])
    assert done.exit_code == 1
    (line,) = done.stderr.splitlines()
    assert line.startswith("metrics-etl sql: Catalog Error: Table with name agent does not exist")
    assert "Traceback" not in done.output and done.stdout == ""


def test_a_missing_serving_database_says_to_run_the_pipeline_first(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SERVING_PATH", str(tmp_path / "absent.duckdb"))
    done = runner.invoke(cli, ["sql", "SELECT 1"])
    assert done.exit_code == 1
    (line,) = done.stderr.splitlines()
    assert line == (
        f"metrics-etl sql: no serving database yet: {tmp_path / 'absent.duckdb'} does not exist "
        "(run `metrics-etl run` first; after `make demo`, give the demo's home: "
        "`metrics-etl --home ~/.local/share/metrics-etl-demo sql`)"
    )
    assert not (tmp_path / "absent.duckdb").exists()


def test_a_reader_that_stops_early_ends_the_command_quietly(serving: Path, tmp_path: Path) -> None:
    # Through a real pipe, as `metrics-etl sql ... | head -1`: the reader leaves after one line.
    env = {**os.environ, "SERVING_PATH": str(serving)}
    command = [sys.executable, "-m", "pipelines.cli", "sql", "--format", "csv", "SELECT * FROM range(1000000)"]
    with subprocess.Popen(command, env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as sql:
        assert sql.stdout is not None and sql.stderr is not None
        assert sql.stdout.readline() == b"range\n"
        sql.stdout.close()
        assert sql.wait(timeout=60) == 0
        assert sql.stderr.read() == b""


@pytest.mark.parametrize(
    ("text", "ends"),
    [
        ("SELECT 1;", True),
        ("SELECT 1;  -- done", True),
        ("SELECT 1; /* done */", True),
        ("SELECT 1", False),
        ("SELECT ';'", False),
        ("SELECT 'it''s;'", False),
        ("SELECT 1 -- not yet;", False),
        ("SELECT 1 /* not yet; */", False),
        ("SELECT 1 /* open;", False),
        ('SELECT 1 AS ";"', False),
        ("", False),
    ],
)
def test_a_statement_ends_at_a_semicolon_outside_quotes_and_comments(text: str, ends: bool) -> None:
    assert statement_ends(text) is ends


def test_the_closing_semicolon_is_dropped_and_nothing_else() -> None:
    assert without_terminator("SELECT ';' AS s; -- c\n") == "SELECT ';' AS s"
    assert without_terminator("SELECT 1 -- c\n") == "SELECT 1 -- c\n"


def _refused(runner: CliRunner, statement: str) -> str:
    done = runner.invoke(cli, ["sql", statement])
    assert done.exit_code == 1, done.output
    (line,) = done.stderr.splitlines()
    assert line.startswith(READ_ONLY), line
    assert "Traceback" not in done.output and done.stdout == ""
    return line


def test_the_warehouse_cannot_be_attached_or_changed(runner: CliRunner, home: Path) -> None:
    warehouse = home / "warehouse.duckdb"
    before = warehouse.read_bytes()
    _refused(runner, f"ATTACH '{warehouse}' AS w (READ_WRITE); DELETE FROM w.daily_totals")
    _refused(runner, f"ATTACH '{warehouse}' AS w (READ_ONLY)")
    _refused(runner, f"COPY (SELECT 'gone') TO '{warehouse}'")
    assert warehouse.read_bytes() == before


def test_no_file_is_written_not_even_inside_the_lake(runner: CliRunner, home: Path) -> None:
    lake_file = home / "lake" / "agents.parquet"
    before = lake_file.read_bytes()
    _refused(runner, f"COPY (SELECT 1 AS n) TO '{lake_file}' (FORMAT parquet)")
    _refused(runner, f"COPY (SELECT 1 AS n) TO '{home / 'lake' / 'new.parquet'}' (FORMAT parquet)")
    _refused(runner, f"EXPORT DATABASE '{home / 'export'}'")
    assert lake_file.read_bytes() == before
    assert sorted(p.name for p in (home / "lake").iterdir()) == ["agents.parquet", "current"]
    assert not (home / "export").exists()


@pytest.mark.parametrize(
    "query",
    [
        "SELECT * FROM read_text('{home}/token')",
        "SELECT * FROM read_text('/etc/passwd')",
        "SELECT * FROM glob('/etc/*')",
        "SELECT * FROM read_csv('{home}/lake/../token')",
        "SELECT * FROM read_parquet('https://example.com/x.parquet')",
    ],
)
def test_nothing_outside_the_lake_is_read(runner: CliRunner, home: Path, query: str) -> None:
    line = _refused(runner, query.format(home=home))
    assert "tok-secret-value" not in line


@pytest.mark.parametrize("statement", ["INSTALL httpfs", "LOAD httpfs", "SET autoload_known_extensions = true"])
def test_no_extension_is_installed_or_loaded(runner: CliRunner, home: Path, statement: str) -> None:
    _refused(runner, statement)


def test_the_lake_and_the_views_still_answer_under_the_lock(runner: CliRunner, home: Path) -> None:
    lake_file = home / "lake" / "agents.parquet"
    done = runner.invoke(
        cli,
        [
            "sql",
            "--format",
            "csv",
            f"SELECT count(*) AS n FROM read_parquet('{lake_file}') UNION ALL SELECT count(*) FROM bi.agents",
        ],
    )
    assert done.exit_code == 0, done.output
    assert done.stdout.splitlines() == ["n", "3", "3"]


@pytest.mark.parametrize("statement", ["SHOW TABLES", "show tables;", "show /* the views */ TABLES"])
def test_show_tables_lists_every_view_by_the_name_a_query_gives_it_bi_first(runner: CliRunner, statement: str) -> None:
    # DuckDB's own SHOW TABLES lists the default schema: the serving database keeps nothing there.
    done = runner.invoke(cli, ["sql", "--format", "csv", statement])
    assert done.exit_code == 0, done.output
    assert list(csv.reader(io.StringIO(done.stdout))) == [
        ["name", "what"],
        ["bi.agents", "Each agent app: its job starts."],
        ["core.user_daily_totals", ""],
    ]


def test_show_tables_at_an_80_column_terminal_names_every_view_whole(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    _printing_to_a_terminal(monkeypatch, columns=80)
    done = runner.invoke(cli, ["sql", "SHOW TABLES"])
    assert done.exit_code == 0, done.output
    assert "│ bi.agents " in done.stdout and "│ core.user_daily_totals " in done.stdout
    assert max(len(line) for line in done.stdout.splitlines()) <= 80


@pytest.mark.parametrize(
    ("query", "hint"),
    [
        ("SELECT * FROM agents", "Table with name agents does not exist! Did you mean bi.agents?"),
        (
            "select count(*) from AGENTS a join bi.agents b using (agent_id)",
            "Table with name AGENTS does not exist! Did you mean bi.agents?",
        ),  # DuckDB's own guess: a pg_ table
        (
            "FROM user_daily_totals",
            "Table with name user_daily_totals does not exist! Did you mean core.user_daily_totals?",
        ),
        ("SELECT * FROM bi.agent", "Table with name agent does not exist! Did you mean bi.agents?"),
        (
            "SELECT * FROM foo.agents",
            'Table with name "foo.agents" does not exist because schema "foo" does not exist. Did you mean bi.agents?',
        ),
        (
            "SELECT * FROM nothing_like_it",
            "Table with name nothing_like_it does not exist! SHOW TABLES lists every view",
        ),
    ],
)
def test_a_view_named_without_its_schema_gets_one_line_naming_it_with_its_schema(
    runner: CliRunner, query: str, hint: str
) -> None:
    done = runner.invoke(cli, ["sql", query])
    assert done.exit_code == 1 and done.stdout == ""
    assert done.stderr.splitlines() == [f"metrics-etl sql: Catalog Error: {hint}"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    name=st.sampled_from(["agents", "user_daily_totals"]).flatmap(
        lambda name: st.tuples(*(st.sampled_from([c.lower(), c.upper()]) for c in name)).map("".join)
    )
)
def test_any_spelling_of_a_views_name_without_its_schema_is_hinted_with_it(runner: CliRunner, name: str) -> None:
    done = runner.invoke(cli, ["sql", f"SELECT * FROM {name}"])
    schema = "bi" if name.lower() == "agents" else "core"
    assert done.stderr.strip().endswith(f"Did you mean {schema}.{name.lower()}?"), done.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["--format", "csv", "-- the answer\nSELECT 42 AS answer"],
        ["--format", "csv", "--", "-- the answer\nSELECT 42 AS answer"],
        ["--format=csv", "--  the answer \n SELECT 42 AS answer"],
    ],
)
def test_a_query_that_begins_with_a_comment_is_the_query_not_an_option(runner: CliRunner, args: list[str]) -> None:
    done = runner.invoke(cli, ["sql", *args])
    assert done.exit_code == 0, done.output
    assert done.stdout.splitlines() == ["answer", "42"]


def test_a_mistyped_option_is_still_named_as_no_such_option(runner: CliRunner) -> None:
    done = runner.invoke(cli, ["sql", "--max-row", "5", "SELECT 1"])
    assert done.exit_code == 2
    assert done.stderr.splitlines() == [
        "metrics-etl sql: No such option '--max-row'. Did you mean '--max-rows'? "
        "(`metrics-etl sql --help` lists what it takes)"
    ]


def test_a_banded_table_writes_control_characters_as_duckdb_s_table_does_never_raw(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A label from the service could hold a terminal escape: printed raw it would clear or recolour the screen.
    hostile = "'Claude' || chr(27) || '[2J' || chr(7) || chr(10) || 'next' || chr(133)"
    query = f"SELECT {hostile} AS agent_name, " + ", ".join(f"{n} AS column_{n}" for n in range(12))
    _printing_to_a_terminal(monkeypatch, columns=60)
    done = runner.invoke(cli, ["sql", query])
    assert done.exit_code == 0, done.output
    assert len(_boxes(done.stdout)) > 1  # banded
    assert not any(char in done.stdout for char in "\x1b\x07\x85")
    assert done.stdout.count("Claude\\e[2J\\a\\nnext\\x85") == len(_boxes(done.stdout))
