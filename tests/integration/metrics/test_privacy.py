"""Privacy enforced by the reader: by default it serves the aggregate tier alone, so a person's
figures come back no way the catalog allows; per-person metrics answer only at the pseudonymous
tier, by pseudonym; and `forget` and retention reach the catalog's answers as every reader's."""

from __future__ import annotations

import json
from datetime import timedelta
from itertools import combinations

import duckdb
import pytest

from pipelines.metrics import MetricsError, MetricsReader
from pipelines.privacy.forget import Places, forget
from pipelines.privacy.retention import apply_retention
from pipelines.publish.lake import publish
from pipelines.publish.pseudonymous import pseudonym, publish_pseudonymous
from tests.integration.bi._warehouse import DAYS, LAST_DAY, USERS
from tests.integration.metrics.conftest import KEY, Home, make_home

EVERY_DAY = {"start": LAST_DAY - timedelta(days=DAYS - 1), "end": LAST_DAY}
LOGINS = [f"dev-{user}" for user in USERS]
PSEUDONYMS = [pseudonym(KEY, user) for user in USERS]


def _every_answer(reader: MetricsReader) -> list[str]:
    """Every metric the reader serves, over every day, split every way it may be."""
    said = []
    for metric in reader.metrics():
        others = [d for d in metric.dimensions if d != "scope"]
        for size in range(len(others) + 1):
            for group_by in combinations(others, size):
                span = EVERY_DAY if metric.grain == "day" else {"start": EVERY_DAY["start"]}
                said.append(json.dumps(reader.query(metric.name, group_by=group_by, **span).to_dict()))
    return said


def test_the_default_tier_tells_no_person_s_figures_any_way_it_is_asked(home: Home) -> None:
    with MetricsReader(home.config()) as reader:
        assert [m.name for m in reader.metrics() if m.tier != "aggregate"] == []
        assert "user" not in {d.name for d in reader.dimensions()}
        answers = _every_answer(reader)
        for text in answers:
            assert not [who for who in (*LOGINS, *PSEUDONYMS) if who in text]
            assert not {"user", "user_id", "user_login", "login", "pseudonym"} & set(json.loads(text)["columns"])
        refusals = [
            lambda: reader.describe("user_interactions"),
            lambda: reader.query("user_interactions"),
            lambda: reader.query("user_code_acceptances", filters={"user": LOGINS[0]}),
            lambda: reader.compare("user_interactions", first=LAST_DAY - timedelta(days=28), second=LAST_DAY),
            *(lambda m=m: reader.query(m.name, group_by=["user"]) for m in reader.metrics()),
            *(
                lambda m=m, w=w: reader.query(m.name, filters={"user": w})
                for m in reader.metrics()
                for w in (LOGINS[0], str(USERS[0]), PSEUDONYMS[0])
            ),
            lambda: reader.compare(
                "interactions", first=LAST_DAY - timedelta(days=28), second=LAST_DAY, group_by=["user"]
            ),
        ]
        for ask in refusals:
            with pytest.raises(MetricsError, match="per-user metrics need the pseudonymous tier"):
                ask()
    assert len(answers) > 20


def test_the_pseudonymous_tier_answers_each_person_by_pseudonym_only(home: Home) -> None:
    with MetricsReader(home.config("pseudonymous")) as reader:
        answer = reader.query("user_interactions", start=LAST_DAY, end=LAST_DAY)
    by_person = {r["user"]: r["user_interactions"] for r in answer.records()}
    # Each user's count in the built warehouse is 50,000 plus their position.
    assert by_person == {pseudonym(KEY, user): 50_000 + n for n, user in enumerate(USERS)}
    assert not [login for login in LOGINS if login in json.dumps(answer.to_dict())]


def test_forget_takes_the_person_out_of_the_catalog_s_answers(tmp_path) -> None:
    home = make_home(tmp_path)
    gone = pseudonym(KEY, USERS[0])
    with MetricsReader(home.config("pseudonymous")) as reader:
        assert gone in {r["user"] for r in reader.query("user_interactions", **EVERY_DAY).records()}
        places = Places(
            raw_dir=tmp_path / "raw",
            spool_dir=tmp_path / "spool",
            etag_cache=None,
            lake=tmp_path / "lake",
            serving=home.serving,
            aggregate_k=2,
        )
        with duckdb.connect(str(home.warehouse)) as conn:
            forget(conn, LOGINS[0], key=KEY, places=places)
        # The same reader, asked again: it keeps nothing between answers.
        after = reader.query("user_interactions", **EVERY_DAY)
    assert after.rows and gone not in {r["user"] for r in after.records()}


def test_retention_takes_expired_days_out_of_the_catalog_s_answers(tmp_path) -> None:
    home = make_home(tmp_path)
    with MetricsReader(home.config("pseudonymous")) as reader:
        before = {r["day"] for r in reader.query("user_interactions", **EVERY_DAY).records() if r["user"]}
        with duckdb.connect(str(home.warehouse)) as conn:
            kept_from = apply_retention(conn, days=10, today=LAST_DAY).kept_from
            publish(conn, lake=home.root / "lake", serving=home.serving, k=2)
            publish_pseudonymous(conn, serving=home.serving, key=KEY)
        after = {r["day"] for r in reader.query("user_interactions", **EVERY_DAY).records() if r["user"]}
    assert min(before) < kept_from
    assert after and min(after) >= kept_from
