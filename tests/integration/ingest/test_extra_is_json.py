"""Reports carrying numbers no double holds (`1e400`, `-1e400`) and JSON's missing constants
(`NaN`), served by the emulator over loopback and landed by the real ingest: every `extra` in
the warehouse is valid JSON to a strict reader, and no DOUBLE column holds an infinity or a NaN.
User, aggregate and repos reports, in both dialects."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import duckdb
import pytest

from tests.integration.ingest.test_repeated_lines import AGGREGATE, REPOS, USER, Kind, _ingest, _served_lines


def _strict(text: str) -> object:
    def refuse(constant: str) -> object:
        raise ValueError(f"{constant} is not JSON")

    def finite(number: str) -> float:
        if not math.isfinite(float(number)):
            raise ValueError(f"{number} is out of range")
        return float(number)

    return json.loads(text, parse_constant=refuse, parse_float=finite)


def _with_literals(line: bytes, replacements: dict[str, str]) -> bytes:
    """The line with each `"field":<number>` named set to a bare literal, and a new field too."""
    text = line.decode()
    for field, literal in replacements.items():
        text, count = re.subn(rf'("{field}":)(-?[0-9.eE+]+|null)', rf"\g<1>{literal}", text, count=1)
        assert count, f"{field} not in the line"
    return ('{"x_future":{"a":[1e400,NaN]},' + text[1:]).encode()


# Per kind: declared numbers fed a literal no double holds (DOUBLE, DECIMAL and integer fields).
_LITERALS: dict[str, dict[str, str]] = {
    "user": {"ai_credits_used": "1e400", "loc_added_sum": "-1e400", "avg_tokens_per_request": "NaN"},
    "aggregate": {"median_minutes_to_merge": "1e400", "loc_added_sum": "NaN"},
    "repos": {"median_minutes_to_merge": "-1e400", "total_created": "NaN"},
}


def _warehouse_values(warehouse: Path) -> tuple[list[str], list[tuple[str, float]]]:
    """Every non-null `extra` text, and every non-finite value of a DOUBLE column."""
    with duckdb.connect(str(warehouse), read_only=True) as conn:
        columns = conn.execute(
            "SELECT schema_name, table_name, column_name, data_type FROM duckdb_columns() "
            "WHERE schema_name IN ('core', 'raw') AND (column_name = 'extra' OR data_type = 'DOUBLE')"
        ).fetchall()
        extras, bad = [], []
        for schema, table, column, _ in columns:
            name = f"{schema}.{table}"
            if column == "extra":
                extras += [r[0] for r in conn.execute(f"SELECT extra FROM {name} WHERE extra IS NOT NULL").fetchall()]
            else:
                bad += [
                    (f"{name}.{column}", r[0])
                    for r in conn.execute(
                        f"SELECT {column} FROM {name} WHERE isinf({column}) OR isnan({column})"
                    ).fetchall()
                ]
    return extras, bad


@pytest.mark.parametrize("dialect", ["service", "github"])
@pytest.mark.parametrize("kind", [USER, AGGREGATE, REPOS], ids=["user", "aggregate", "repos"])
def test_extra_holds_only_strict_json_and_no_double_holds_an_infinity(tmp_path: Path, kind: Kind, dialect: str):
    served = _served_lines(kind.served_level, dialect)
    literals = _LITERALS[kind.served_level]
    # The first line that carries every field fed a literal.
    at = next(
        i for i, line in enumerate(served) if all(re.search(rf'"{f}":(-?[0-9]|null)', line.decode()) for f in literals)
    )
    lines = [*served[:at], _with_literals(served[at], literals), *served[at + 1 :]]
    landed = _ingest(tmp_path, "literals", lines, kind, dialect)
    assert landed.result.quarantined == 0  # the line lands: only its values out of range are set aside

    extras, non_finite = _warehouse_values(landed.warehouse)
    assert non_finite == []
    kept = [_strict(text) for text in extras]  # raises on Infinity, NaN or 1e400
    texts = json.dumps(kept)
    assert '"1e400"' in texts and '"NaN"' in texts  # kept as the text they came as
    for field, literal in _LITERALS[kind.served_level].items():
        assert f'"{literal}"' in texts, field
