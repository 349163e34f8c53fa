"""`metrics-etl emulator` takes every option of `python -m emulator`, with the same defaults: it
hands its options to the same runner, which reads each of them (a missing one failed to start
the emulator once)."""

from __future__ import annotations

import argparse

from emulator.cli import add_arguments
from pipelines.cli._emulator import emulator


def test_metrics_etl_emulator_takes_every_option_of_python_m_emulator_with_its_default() -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    wanted = {a.dest: a.default for a in parser._actions if a.dest != "help"}
    given = {p.name: p.default for p in emulator.params if p.name is not None}
    assert given.keys() == wanted.keys()
    assert given["vendors"] == wanted["vendors"] == "claude,cursor"
    assert given["billing_read"] == wanted["billing_read"] == "on"
