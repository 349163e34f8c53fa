"""The Python examples of docs/bi.md and how a test runs one: each leaves `totals`, agent job
starts per (scope, scope_name, agent_id) over the last 28 days, as bi.agent_usage_periods'
period 0 has them."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import duckdb

REPO = Path(__file__).resolve().parents[3]
BI_DOCS = REPO / "docs" / "bi.md"
# A block's first line may say where it runs instead, and why: "# runs in <test file>: <reason>".
RUNS_ELSEWHERE = re.compile(r"# runs in (?P<path>\S+\.py): \S")
PERIOD_0 = (
    "SELECT scope, scope_name, agent_id, agent_job_starts FROM bi.agent_usage_periods"
    " WHERE period_index = 0 AND agent_job_starts > 0"
)

Totals = dict[tuple[str, str, str], int]


@dataclass(frozen=True)
class Block:
    heading: str
    line: int
    code: str

    @property
    def runs_in(self) -> str | None:
        found = RUNS_ELSEWHERE.match(self.code)
        return found["path"] if found else None


def python_blocks() -> list[Block]:
    blocks: list[Block] = []
    heading, fence, code, first = "", None, [], 0
    for number, line in enumerate(BI_DOCS.read_text().splitlines(), start=1):
        if fence is None and line.startswith("```"):
            fence, code, first = line[3:].strip(), [], number + 1
        elif fence is not None and line.startswith("```"):
            if fence == "python":
                blocks.append(Block(heading=heading, line=first, code="\n".join(code) + "\n"))
            fence = None
        elif fence is not None:
            code.append(line)
        elif line.startswith("#"):  # outside a fence: a heading, not a comment of an example
            heading = line.lstrip("#").strip()
    return blocks


def run_block(block: Block, *, cwd: Path) -> Totals:
    """Run the example as a script of its own from `cwd` (a data home), and return its totals."""
    script = block.code + "\nprint(repr(totals))\n"
    done = subprocess.run([sys.executable, "-c", script], cwd=cwd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"docs/bi.md line {block.line} ({block.heading}):\n{done.stderr[-3000:]}"
    return ast.literal_eval(done.stdout.strip().splitlines()[-1])


def period_0_totals(serving: Path) -> Totals:
    with duckdb.connect(str(serving), read_only=True) as conn:
        return {(scope, name, agent): starts for scope, name, agent, starts in conn.execute(PERIOD_0).fetchall()}
