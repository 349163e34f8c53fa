"""`metrics-etl sql` prints every value DuckDB can hold, in every format, as DuckDB writes it:
no traceback for a date Python cannot hold (`infinity`, year 5877642), no wrong number for a
value Arrow hands Python another way (UHUGEINT's largest read as -1, TIME 24:00 as 00:00), and
`--format json` is JSON a strict reader takes (no bare NaN or Infinity, no key lost when two
columns share a name). A statement that answers with no rows still says so."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import duckdb
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipelines.cli import cli

# Values Arrow or Python cannot carry as they are (each broke a format with a traceback or a wrong value).
EDGES = {
    "SELECT 'infinity'::DATE AS d": "infinity",
    "SELECT '-infinity'::TIMESTAMP AS t": "-infinity",
    "SELECT 'infinity'::TIMESTAMPTZ AS t": "infinity",
    "SELECT DATE '5877642-06-25' AS d": "5877642-06-25",
    "SELECT '290309-12-22 (BC) 00:00:00'::TIMESTAMP AS t": "290309-12-22 (BC) 00:00:00",
    "SELECT 340282366920938463463374607431768211455::UHUGEINT AS u": "340282366920938463463374607431768211455",
    "SELECT TIME '24:00:00' AS t": "24:00:00",
    "SELECT INTERVAL 2147483647 MONTH AS i": "178956970 years 7 months",
    "SELECT '\\xFF\\x00'::BLOB AS b": "\\xFF\\x00",
}
# As text, a FLOAT is its shortest spelling (Python's double gave 0.10000000149011612).
TEXT_EDGES = {**EDGES, "SELECT 0.1::FLOAT AS f": "0.1"}


def _csv(runner: CliRunner, statement: str, fmt: str = "csv") -> list[list[str]]:
    done = runner.invoke(cli, ["sql", "--format", fmt, "--", statement])
    assert done.exit_code == 0 and "Traceback" not in done.output, done.output
    return list(csv.reader(io.StringIO(done.stdout), delimiter="\t" if fmt == "tsv" else ","))


def _json_lines(runner: CliRunner, statement: str) -> list[dict[str, Any]]:
    done = runner.invoke(cli, ["sql", "--format", "json", "--", statement])
    assert done.exit_code == 0 and "Traceback" not in done.output, done.output

    def strict(constant: str) -> None:
        raise AssertionError(f"{constant} is not JSON")

    return [json.loads(line, parse_constant=strict) for line in done.stdout.splitlines()]


@pytest.mark.parametrize(("statement", "text"), TEXT_EDGES.items())
@pytest.mark.parametrize("fmt", ["csv", "tsv"])
def test_a_value_python_cannot_hold_prints_as_duckdb_writes_it(
    runner: CliRunner, statement: str, text: str, fmt: str
) -> None:
    (_header, row) = _csv(runner, statement, fmt)
    assert row == [text]


@pytest.mark.parametrize(("statement", "text"), EDGES.items())
def test_a_value_python_cannot_hold_prints_as_json_a_strict_reader_takes(
    runner: CliRunner, statement: str, text: str
) -> None:
    (row,) = _json_lines(runner, statement)
    assert [str(value) for value in row.values()] == [text]  # a number stays one: UHUGEINT


def test_every_type_duckdb_has_prints_in_every_format(runner: CliRunner) -> None:
    # test_all_types(): each type's smallest, largest and NULL value, nested ones included.
    ((expected,),) = duckdb.sql("SELECT count(*) FROM test_all_types()").fetchall()
    for fmt in ("csv", "tsv"):
        assert len(_csv(runner, "SELECT * FROM test_all_types()", fmt)) == 1 + expected
    assert len(_json_lines(runner, "SELECT * FROM test_all_types()")) == expected
    done = runner.invoke(cli, ["sql", "--format", "table", "SELECT * FROM test_all_types()"])
    assert done.exit_code == 0 and "Traceback" not in done.output, done.output


def test_json_numbers_stay_numbers_and_a_double_past_json_is_its_text(runner: CliRunner) -> None:
    (row,) = _json_lines(
        runner,
        "SELECT 1 AS i, 2.5::DOUBLE AS d, 123456789012345678.123::DECIMAL(38, 3) AS m, "
        "170141183460469231731687303715884105727::HUGEINT AS h, 'nan'::DOUBLE AS n, "
        "['inf'::DOUBLE, 1.5] AS l, true AS b, NULL::INTEGER AS z, 'a\"b' AS s",
    )
    assert row == {
        "i": 1,
        "d": 2.5,
        "m": 123456789012345678.123,
        "h": 170141183460469231731687303715884105727,
        "n": "NaN",
        "l": ["Infinity", 1.5],
        "b": True,
        "z": None,
        "s": 'a"b',
    }


def test_a_json_line_holds_no_character_a_reader_takes_for_a_line_break(runner: CliRunner) -> None:
    (row,) = _json_lines(runner, "SELECT chr(133) || chr(8232) || chr(8233) AS s")  # NEL, LINE and PARAGRAPH SEPARATOR
    assert row == {"s": "\x85\u2028\u2029"}


def test_two_columns_of_one_name_keep_both_values_in_json(runner: CliRunner) -> None:
    (row,) = _json_lines(runner, "SELECT 1 AS a, 2 AS a, 3 AS a_1")
    assert sorted(row.values()) == [1, 2, 3] and row["a"] == 1


_SCALARS = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**63 - 1).map(lambda n: f"CAST({n} AS BIGINT)"),
    st.integers(min_value=0, max_value=2**128 - 1).map(lambda n: f"CAST({n} AS UHUGEINT)"),
    st.integers(min_value=-5877641, max_value=5881580).map(lambda n: f"(DATE '1970-01-01' + {n})"),
    st.sampled_from(
        [
            "'infinity'::DATE",
            "'-infinity'::TIMESTAMP",
            "'nan'::DOUBLE",
            "'-inf'::FLOAT",
            "TIME '24:00:00'",
            "NULL",
            "'\\x00\\xFF'::BLOB",
            "INTERVAL 1 MICROSECOND",
        ]
    ),
    st.text(max_size=20).map(lambda text: "'" + text.replace("\x00", "").replace("'", "''") + "'"),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values=st.lists(_SCALARS, min_size=1, max_size=4))
def test_csv_prints_each_value_as_duckdb_casts_it_to_text(runner: CliRunner, values: list[str]) -> None:
    columns = ", ".join(f"{value} AS c{at}" for at, value in enumerate(values))
    (texts,) = duckdb.sql(f"SELECT {', '.join(f'CAST({value} AS VARCHAR)' for value in values)}").fetchall()
    _header, *rows = _csv(runner, f"SELECT {columns}, [{values[0]}] AS nested")
    assert rows[0][:-1] == ["" if text is None else text for text in texts]
    _json_lines(runner, f"SELECT {columns}, [{values[0]}] AS nested")  # strict JSON, whatever the values


def test_a_statement_that_answers_no_rows_says_so_in_json_too(runner: CliRunner) -> None:
    done = runner.invoke(cli, ["sql", "--format", "json", "SELECT 1 AS n WHERE false"])
    assert done.exit_code == 0 and done.stdout == ""
    assert done.stderr.splitlines() == ["(no rows)"]


@pytest.mark.parametrize(
    ("statement", "line"),
    [
        ("SET VARIABLE v = 1", "(SET done)"),
        ("RESET VARIABLE v", "(RESET done)"),
        ("/* a comment */ set search_path = 'bi'", "(SET done)"),
    ],
)
def test_a_statement_that_answers_with_no_rows_says_it_is_done(runner: CliRunner, statement: str, line: str) -> None:
    done = runner.invoke(cli, ["sql", "--format", "csv", statement])
    assert done.exit_code == 0 and done.stdout == ""
    assert done.stderr.splitlines() == [line]


@pytest.mark.parametrize("text", ["", ";", " ;; ", "-- only a comment", "/* only */ ;"])
def test_sql_without_a_statement_is_one_line_saying_so(runner: CliRunner, text: str) -> None:
    for args, stdin in ((["sql", "--", text], None), (["sql"], text)):
        done = runner.invoke(cli, args, input=stdin)
        assert done.exit_code == 1 and done.stdout == ""
        assert done.stderr.splitlines() == ["metrics-etl sql: no statement to run: the SQL holds only comments or ;"]


def test_no_progress_bar_is_drawn_among_the_rows(runner: CliRunner) -> None:
    # DuckDB draws it on the process's stdout once a statement has run 2 s: a slow piped answer
    # ended with a line `100% ▕███…▏ (00:00:03.83 elapsed)` after its last row.
    done = runner.invoke(cli, ["sql", "--format", "csv", "SELECT current_setting('enable_progress_bar') AS bar"])
    assert done.stdout.splitlines() == ["bar", "false"]


@pytest.mark.parametrize(
    "statement",
    [
        "SELECT * FROM read_text('{lake_file}')",
        "SELECT * FROM read_csv('{lake_file}')",
        "SELECT * FROM read_json_objects('{lake_file}')",
    ],
)
def test_a_lake_file_read_as_what_it_is_not_is_no_damaged_file(
    runner: CliRunner, tmp_path: Path, statement: str
) -> None:
    # The Parquet file is whole: reading it as text, CSV or JSON fails for what the reader is.
    done = runner.invoke(cli, ["sql", statement.format(lake_file=tmp_path / "lake" / "agents.parquet")])
    assert done.exit_code == 1
    (line,) = done.stderr.splitlines()
    assert "publish" not in line and "damaged" not in line, line
