"""`forget` holds for the server as for every other reader: a person erased while a server keeps
running at the pseudonymous tier is gone from its next answer, by pseudonym and in every row.
(A home of its own: forget changes it.)"""

from __future__ import annotations

import hashlib
import hmac
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp.client.session import ClientSession

from tests.integration.mcp._client import answer, talk
from tests.integration.mcp.conftest import KEY, Home, clean_env, cli


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Home:
    root = tmp_path_factory.mktemp("mcp-forget")
    (root / "cwd").mkdir()
    made = Home(path=root / "home", cwd=root / "cwd", env=clean_env(XDG_DATA_HOME=str(root / "share")))
    demo = cli(made, "demo", "--days", "3", "--users", "12", "--repos", "1")
    assert demo.returncode == 0, demo.stderr[-3000:]
    published = cli(made, "publish", METRICS_PSEUDONYM_KEY=KEY)
    assert published.returncode == 0, published.stderr[-3000:]
    return made


def test_a_person_forgotten_while_the_server_runs_is_gone_from_its_next_answer(small: Home, tmp_path: Path) -> None:
    ((login, user_id),) = small.sql(
        "SELECT user_login, user_id FROM core.user_daily_totals GROUP BY ALL ORDER BY count(*) DESC, 1 LIMIT 1",
        db="warehouse.duckdb",
    )
    pseudonym = hmac.new(KEY.encode(), f"pseudonym:{user_id}".encode(), hashlib.sha256).hexdigest()
    question = {"metric": "user_interactions", "start": "2000-01-01"}

    async def script(session: ClientSession) -> tuple[types.CallToolResult, types.CallToolResult, types.CallToolResult]:
        before = await session.call_tool("query_metric", question)
        forgot = await anyio.to_thread.run_sync(lambda: cli(small, "forget", str(login), METRICS_PSEUDONYM_KEY=KEY))
        assert forgot.returncode == 0, forgot.stderr[-3000:]
        after = await session.call_tool("query_metric", question)
        return before, after, await session.call_tool("query_metric", {**question, "filters": {"user": pseudonym}})

    before, after, theirs = talk(small, script, "--tier", "pseudonymous", errlog=tmp_path / "stderr")
    assert pseudonym in {row["user"] for row in answer(before)["rows"]}
    remaining = answer(after)["rows"]
    assert remaining and pseudonym not in {row["user"] for row in remaining}
    assert pseudonym not in {row["user"] for row in answer(theirs)["rows"]}
