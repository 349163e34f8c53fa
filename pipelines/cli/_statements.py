"""What a statement of `metrics-etl sql` is: where one typed at the prompt ends (a `;` outside
quotes and comments), and whether it only reads (`refusal`)."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import duckdb


def statement_ends(text: str) -> bool:
    """Whether `text` ends with a `;` outside quotes and comments: a statement typed in full."""
    last, complete = _last_char(text)
    return complete and last >= 0 and text[last] == ";"


def without_terminator(statement: str) -> str:
    """The statement without its closing `;` (DuckDB's table rendering wraps the text in a query)."""
    last, _ = _last_char(statement)
    return statement[:last] if last >= 0 and statement[last] == ";" else statement


def _last_char(text: str) -> tuple[int, bool]:
    """Where the last character outside comments is (-1: none), and whether no quote or comment is open."""
    last, quote, at = -1, "", 0
    while at < len(text):
        char = text[at]
        if quote:
            last = at
            quote = "" if char == quote else quote  # '' inside a literal closes and reopens it
        elif text.startswith("--", at):
            newline = text.find("\n", at)
            at = len(text) if newline < 0 else newline
            continue
        elif text.startswith("/*", at):
            close = text.find("*/", at + 2)
            if close < 0:
                return last, False
            at = close + 2
            continue
        elif char in "'\"":
            quote, last = char, at
        elif not char.isspace():
            last = at
        at += 1
    return last, not quote


# Statement types that read, once their plan shows it: MULTI is how DuckDB parses a PIVOT
# without IN. SET changes a variable (settings are locked); EXPLAIN is judged by what it wraps.
_READS = frozenset({"SELECT", "CALL", "MULTI"})
# Plan nodes that write, create, attach or change a setting, whatever wraps them.
_WRITING_OPERATOR = re.compile(
    r"COPY|INSERT|UPDATE|DELETE|MERGE|CREATE|ALTER|DROP|ATTACH|DETACH|EXPORT|IMPORT|LOAD|INSTALL|EXTENSION"
    r"|VACUUM|CHECKPOINT|PRAGMA|TRANSACTION|PREPARE|EXECUTE|SECRET|EXPLAIN|RESET|VARIABLE|^SET$"
)
_SETTING = frozenset({"SET", "RESET", "SET_VARIABLE"})  # a SET statement's own plan node
# The words of EXPLAIN's option list: ANALYZE and FORMAT, nothing that could name a file.
_EXPLAIN_OPTIONS = frozenset(
    {
        "ANALYZE",
        "ANALYSE",
        "FORMAT",
        "TRUE",
        "FALSE",
        "ON",
        "OFF",
        "1",
        "0",
        "DEFAULT",
        "TEXT",
        "QUERY_TREE",
        "QUERY_TREE_OPTIMIZER",
        "NO_OUTPUT",
        "JSON",
        "HTML",
        "GRAPHVIZ",
        "YAML",
        "MERMAID",
        "COMPACT",
    }
)
# Table functions that only read (files of the lake, the catalog, generated rows): any other
# (checkpoint, enable_logging, truncate_duckdb_logs, the external resources, ...) is refused.
_READING_FUNCTION = re.compile(
    r"(READ|PARQUET|DUCKDB|PRAGMA)_\w+|SNIFF_CSV|GLOB|RANGE|GENERATE_SERIES|REPEAT(_ROW)?|UNNEST|JSON_(EACH|TREE)"
    r"|SEQ_SCAN|QUERY(_TABLE)?|SUMMARY|SHOW(_\w+)?|TABLE_INFO|FUNCTIONS|COLLATIONS|DATABASE_(LIST|SIZE)"
    r"|(STORAGE|METADATA)_INFO|HISTOGRAM(_VALUES)?|ICU_CALENDAR_NAMES|PG_TIMEZONE_NAMES|PLATFORM|USER_AGENT"
    r"|VERSION|EXTENSION_VERSIONS|WHICH_SECRET|TEST_(ALL|VECTOR)_TYPES",
    re.IGNORECASE,
)


def refusal(conn: duckdb.DuckDBPyConnection, statement: duckdb.Statement) -> str | None:
    """Why `statement` may not run in a read-only shell, or None when it only reads; DuckDB's
    error when it cannot be planned.

    By structure, not by spelling: the statement's type, the type of what an EXPLAIN wraps (its
    ANALYZE runs it), and every node of the plan DuckDB would run, table functions included.
    """
    kind = statement_kind(statement)
    text = without_terminator(statement.query)
    if kind == "EXPLAIN" or first_word(text) == "EXPLAIN":  # EXPLAIN of a PIVOT without IN is a MULTI
        inner = _explained(text)
        if inner is None:
            return "EXPLAIN takes a query only (SELECT, FROM, WITH, PIVOT, CALL): EXPLAIN ANALYZE runs what it wraps"
        return refusal(conn, inner)
    if kind == "PRAGMA":  # runs a pragma function DuckDB cannot EXPLAIN first
        return "PRAGMA statements are refused: SHOW TABLES, DESCRIBE <view> and FROM pragma_table_info('<view>') read"
    if kind not in _READS | {"SET"}:
        return f"{kind.replace('_', ' ')} statements are refused"
    if (reason := _named_refusal(conn, text)) is not None:
        return reason
    # What cannot be planned does not run: DuckDB's error (a missing table, a typo) is raised.
    (row,) = conn.execute(f"EXPLAIN (FORMAT json) {text}").fetchall()
    nodes: list[dict[str, Any]] = json.loads(row[1])
    if kind == "SET":
        nodes = [child for node in nodes if node["name"] in _SETTING for child in node.get("children", [])]
    return next(filter(None, map(_writer, nodes)), None)


def _named_refusal(conn: duckdb.DuckDBPyConnection, text: str) -> str | None:
    """Why `text` may not even be planned, judged by its words: DuckDB binds a table function
    while it plans (enable_profiling acts then) and runs a PIVOT without IN's source to find its
    columns, both before a plan could be read. So a table function that does not read is refused
    wherever it is named, in the SQL of a `query()` too, whose SQL must be one literal string."""
    import duckdb

    from pipelines.warehouse.sql import run_sql

    tokens = duckdb.tokenize(text)
    ends = [at for at, _ in tokens[1:]] + [len(text)]
    words = [
        (text[at:end].strip(), kind)
        for (at, kind), end in zip(tokens, ends, strict=True)
        if kind != duckdb.token_type.comment
    ]  # `checkpoint /* */ ()` names it too
    table_functions = {name for (name,) in run_sql(conn, "metadata/select_table_functions.sql")}
    for at, (word, kind) in enumerate(words[:-1]):
        name = word.strip('"').lower()
        called = words[at + 1][0].startswith("(")
        if kind not in (duckdb.token_type.identifier, duckdb.token_type.keyword) or not called:
            continue
        if name == "query":
            argument = words[at + 2 : at + 4]
            literal = (
                _literal(argument[0][0])
                if len(argument) == 2
                and argument[1][0].startswith(")")
                and argument[0][1] == duckdb.token_type.string_const
                else None
            )
            if literal is None:
                return "query() takes one literal string here: the SQL of any other is bound before it can be judged"
            if (reason := _named_refusal(conn, literal)) is not None:
                return reason
        elif name in table_functions and not _READING_FUNCTION.fullmatch(name):
            return f"the table function {name} is refused"
    return None


def _literal(token: str) -> str | None:
    """The text of a string literal ('it''s', $$...$$, $tag$...$tag$), None for another kind."""
    if len(token) > 1 and token[0] == token[-1] == "'":
        return token[1:-1].replace("''", "'")
    dollar = re.fullmatch(r"(\$\w*\$)(.*)\1", token, re.DOTALL)
    return dollar[2] if dollar else None


def statement_kind(statement: duckdb.Statement) -> str:
    try:
        return statement.type.name
    except ValueError:  # a type the Python binding has no name for (UPDATE EXTENSIONS): not a read
        return statement.query.split(maxsplit=1)[0].upper()


def _writer(node: dict[str, Any]) -> str | None:
    """What in this plan (sub)tree is not a read, or None."""
    function = node.get("extra_info", {}).get("Function")  # a table function's node is named by it
    if isinstance(function, str):
        if not _READING_FUNCTION.fullmatch(function):
            return f"the table function {function.lower()} is refused"
    elif _WRITING_OPERATOR.search(node["name"]):
        return f"its plan holds {node['name']}"
    return next(filter(None, map(_writer, node.get("children", []))), None)


def first_word(text: str) -> str:
    return next(iter(words(text)), "")


def words(text: str) -> list[str]:
    """The statement's tokens outside comments, upper case: `show /* */ tables` is SHOW TABLES."""
    import duckdb

    tokens = duckdb.tokenize(text)
    ends = [at for at, _ in tokens[1:]] + [len(text)] if tokens else []
    return [
        text[at:end].strip().upper()
        for (at, kind), end in zip(tokens, ends, strict=True)
        if kind != duckdb.token_type.comment
    ]


def _explained(text: str) -> duckdb.Statement | None:
    """The one statement an EXPLAIN wraps (after ANALYZE and an option list), if it is one that reads."""
    import duckdb

    tokens = duckdb.tokenize(text)
    ends = [at for at, _ in tokens[1:]] + [len(text)]
    depth = 0
    for (at, kind), end in zip(tokens[1:], ends[1:], strict=True):  # the first is EXPLAIN
        word = text[at:end].strip().strip("'").upper()
        if kind == duckdb.token_type.comment or (depth == 0 and word in ("ANALYZE", "ANALYSE")):
            continue
        if depth == 0 and (wrapped := _one_read(text[at:])) is not None:
            return wrapped  # `EXPLAIN (SELECT 1)`: what follows is the query itself
        if kind == duckdb.token_type.operator and (depth or word.startswith("(")):
            depth += word.count("(") - word.count(")")
        elif not depth or word not in _EXPLAIN_OPTIONS:
            return None
    return None


def _one_read(text: str) -> duckdb.Statement | None:
    import duckdb

    try:
        statements = duckdb.extract_statements(text)
    except duckdb.Error:
        return None
    if len(statements) == 1 and statement_kind(statements[0]) in _READS:
        return statements[0]
    return None
