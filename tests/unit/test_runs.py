"""`metrics-etl run`: the one-line failure (the real cause, never DuckDB's caret line) and the run log."""

import dagster as dg
import duckdb
import pytest
from dagster._utils.error import serializable_error_info_from_exc_info

from pipelines.defs.failures import describe_error
from pipelines.run_log import RunLog


def _info(exc: BaseException):
    try:
        raise exc
    except BaseException as raised:
        return serializable_error_info_from_exc_info((type(raised), raised, raised.__traceback__))


def test_a_duckdb_binder_error_shows_its_first_line_not_the_caret_marker():
    with duckdb.connect() as conn, pytest.raises(duckdb.Error) as caught:
        conn.execute("SELECT * FROM raw.report_files")
    text = describe_error(_info(caught.value))
    assert text.startswith('CatalogException: Catalog Error: Table with name "raw.report_files" does not exist')
    assert "^" not in text and "See also" not in text


def test_an_out_of_memory_error_names_the_cause_and_what_to_do():
    message = (
        "Out of Memory Error: failed to allocate data of size 16.0 KiB (60.8 MiB/61.0 MiB used)\n\n"
        "Possible solutions:\n* Reducing the number of threads\n\n"
        "See also https://duckdb.org/docs/current/guides/performance/how_to_tune_workloads"
    )
    text = describe_error(_info(duckdb.OutOfMemoryException(message)))
    assert text.startswith("DuckDB ran out of memory")
    assert "OutOfMemoryException: Out of Memory Error: failed to allocate" in text


def test_a_disk_full_error_says_so():
    text = describe_error(
        _info(duckdb.IOException('IO Error: Could not write file "w.duckdb.wal": No space left on device'))
    )
    assert text.startswith("the disk is full")


def test_the_cause_dagster_wraps_is_the_one_shown():
    try:
        try:
            raise ValueError("the real cause\n   ^^^^")
        except ValueError as inner:
            raise RuntimeError("Error occurred while executing op") from inner
    except RuntimeError as outer:
        info = serializable_error_info_from_exc_info((type(outer), outer, outer.__traceback__))
    assert describe_error(info) == "ValueError: the real cause"


def test_a_warehouse_locked_by_another_process_says_who_holds_it_and_what_to_do(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "w.duckdb"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import duckdb, sys, time; c = duckdb.connect({str(path)!r}); print('held', flush=True); time.sleep(30)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(duckdb.IOException) as caught:
            duckdb.connect(str(path))
    finally:
        holder.kill()
        holder.wait()
    text = describe_error(_info(caught.value))
    assert text.startswith("another process holds the warehouse open for writing")
    assert "IOException: IO Error: Could not set lock on file" in text


def test_a_run_log_has_a_message_on_every_line_and_no_planned_asset_lines(tmp_path):
    days = dg.DailyPartitionsDefinition(start_date="2026-01-01")

    @dg.asset(partitions_def=days)
    def landed(context: dg.AssetExecutionContext) -> None:
        context.log.info("landed %s", context.partition_key)

    job = dg.define_asset_job("job")
    job_def = dg.Definitions(assets=[landed], jobs=[job]).resolve_job_def("job")
    with dg.DagsterInstance.ephemeral() as instance:
        result = job_def.execute_in_process(instance=instance, partition_key="2026-01-02")
        log = RunLog(tmp_path)
        log.write("2026-01-02", result, instance)
    header, *lines = log.path.read_text().splitlines()
    assert header.startswith("== 2026-01-02 (run ") and header.endswith("): success")
    messages = [line.split(" ", 3)[3] if line.count(" ") >= 3 else "" for line in lines]
    assert lines and all(message.strip() for message in messages), lines
    assert "landed 2026-01-02" in messages and not any("intends to materialize" in m for m in messages)
