from datetime import UTC, date, datetime

import polars as pl
from hypothesis import given
from hypothesis import strategies as st

from pipelines.transform import snapshots as tf
from pipelines.transform.columns import polars_types

DAY = date(2026, 11, 20)


def _repo(id_: int, full_name: str, **extra):
    owner, _, name = full_name.partition("/")
    return {"id": id_, "full_name": full_name, "name": name, "owner": {"login": owner, "id": 7}, **extra}


def _issue(id_: int, number: int, **extra):
    return {"id": id_, "number": number, "title": f"t{number}", "state": "open", **extra}


def test_repository_record_maps_to_typed_columns():
    frame = tf.repositories_frame(
        records=[
            _repo(
                11,
                "acme/api",
                private=True,
                visibility="internal",
                default_branch="main",
                stargazers_count=4,
                open_issues_count=2,
                created_at="2026-01-02T03:04:05Z",
                pushed_at="2026-02-01T00:00:00+00:00",
                unknown_field={"kept": False},
            )
        ],
        day=DAY,
    )
    assert frame.schema == pl.Schema(tf.REPOSITORIES_SCHEMA)
    row = frame.row(0, named=True)
    assert row["repository_id"] == 11 and row["owner_login"] == "acme" and row["name"] == "api"
    assert row["visibility"] == "internal" and row["private"] is True
    assert row["created_at"] == datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert row["updated_at"] is None
    assert row["snapshot_day"] == DAY


def test_visibility_falls_back_to_private_flag():
    frame = tf.repositories_frame(records=[_repo(1, "a/b", private=False), _repo(2, "a/c", private=True)], day=DAY)
    assert frame["visibility"].to_list() == ["public", "private"]


def test_pull_requests_are_told_apart_and_labels_kept_as_list():
    frame = tf.issues_frame(
        records=[
            _issue(
                100, 1, labels=[{"id": 1, "name": "bug"}, {"id": 2, "name": "question"}], user={"login": "ann", "id": 3}
            ),
            _issue(101, 2, labels=["plain-string"], pull_request={"url": "x"}),
            _issue(102, 3, labels=[], pull_request=None, closed_at="2026-11-01T00:00:00Z", state="closed"),
        ],
        day=DAY,
        repository_id=11,
        repository_full_name="acme/api",
    )
    assert frame["is_pull_request"].to_list() == [False, True, False]
    assert frame["labels"].to_list() == [["bug", "question"], ["plain-string"], []]
    assert frame["user_login"].to_list() == ["ann", None, None]
    assert frame["repository_id"].unique().to_list() == [11]
    assert frame.schema == pl.Schema(tf.ISSUES_SCHEMA)


def test_issue_seen_on_two_pages_lands_once_with_the_later_record():
    frame = tf.issues_frame(
        records=[_issue(5, 1, title="old"), _issue(6, 2), _issue(5, 1, title="new")],
        day=DAY,
        repository_id=1,
        repository_full_name="a/b",
    )
    assert frame.height == 2
    assert frame.filter(pl.col("issue_id") == 5)["title"].to_list() == ["new"]


def test_stats_node_counts_are_flattened():
    node = {
        "stargazerCount": 9,
        "forkCount": 2,
        "openIssues": {"totalCount": 3},
        "issues": {"totalCount": 10},
        "openPullRequests": {"totalCount": 1},
        "pullRequests": {"totalCount": 4},
        "mentionableUsers": {"totalCount": 12},
        "defaultBranchRef": None,
    }
    row = tf.repository_stats_frame(nodes=[(11, "acme/api", node)], day=DAY).row(0, named=True)
    assert row == {
        "snapshot_day": DAY,
        "repository_id": 11,
        "full_name": "acme/api",
        "stargazer_count": 9,
        "fork_count": 2,
        "open_issue_count": 3,
        "issue_count": 10,
        "open_pull_request_count": 1,
        "pull_request_count": 4,
        "mentionable_user_count": 12,
        "default_branch_name": None,
    }


def test_members_and_warnings_have_their_schemas_even_when_empty():
    assert tf.org_members_frame(records=[], day=DAY, org="acme").schema == pl.Schema(tf.ORG_MEMBERS_SCHEMA)
    assert tf.warnings_frame(warnings=[], day=DAY).schema == pl.Schema(tf.WARNINGS_SCHEMA)
    members = tf.org_members_frame(
        records=[{"id": 3, "login": "ann", "type": "User", "site_admin": False}], day=DAY, org="acme"
    )
    assert members.row(0) == (DAY, "acme", 3, "ann", "User", False)


def test_renamed_repository_keeps_its_id_across_days():
    before = tf.repositories_frame(records=[_repo(42, "acme/old-name")], day=date(2026, 11, 19))
    after = tf.repositories_frame(records=[_repo(42, "acme/new-name")], day=DAY)
    history = pl.concat([before, after]).group_by("repository_id").agg(pl.col("full_name").sort_by("snapshot_day"))
    assert history.rows() == [(42, ["acme/old-name", "acme/new-name"])]


_names = st.text(alphabet="abcdefghij-", min_size=1, max_size=6)


@given(st.lists(st.tuples(st.integers(1, 30), _names, _names), max_size=40))
def test_one_row_per_repository_id_whatever_the_listing(entries):
    records = [_repo(i, f"{o}/{n}") for i, o, n in entries]
    frame = tf.repositories_frame(records=records, day=DAY)
    assert frame["repository_id"].to_list() == sorted({i for i, _, _ in entries})
    last = {i: f"{o}/{n}" for i, o, n in entries}
    assert dict(zip(frame["repository_id"], frame["full_name"], strict=True)) == last


@given(st.lists(st.lists(st.integers(1, 50), max_size=15), max_size=6))
def test_concatenated_issue_frames_keep_one_row_per_issue(pages):
    frames = [
        tf.issues_frame(records=[_issue(i, i) for i in page], day=DAY, repository_id=r, repository_full_name=f"a/r{r}")
        for r, page in enumerate(pages)
    ]
    out = tf.concat_frames(frames=frames, schema=tf.ISSUES_SCHEMA, key="issue_id")
    assert out["issue_id"].to_list() == sorted({i for page in pages for i in page})
    assert out.schema == pl.Schema(tf.ISSUES_SCHEMA)


def test_each_snapshot_frame_has_its_table_s_declared_columns_and_types_in_order():
    # The frames' columns are the table declarations (pipelines/transform/columns.py), which
    # tests/unit/warehouse/test_columns.py holds equal to the migrated warehouse.
    frames = {
        "repositories": tf.repositories_frame(records=[], day=DAY),
        "repository_stats": tf.repository_stats_frame(nodes=[], day=DAY),
        "issues": tf.issues_frame(records=[], day=DAY, repository_id=1, repository_full_name="acme/api"),
        "org_members": tf.org_members_frame(records=[], day=DAY, org="acme"),
        "warnings": tf.warnings_frame(warnings=[], day=DAY),
    }
    for table, frame in frames.items():
        assert list(frame.schema.items()) == list(polars_types(f"snapshots.{table}").items()), table
