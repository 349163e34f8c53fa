"""data_of: which GraphQL answers are a partial NOT_FOUND and which are plain failures."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipelines.service.errors import GraphQLError, GraphQLNotFound
from pipelines.service.graphql import data_of

URL = "https://api.example.test/graphql"


def _missing(alias: str) -> dict:
    return {
        "type": "NOT_FOUND",
        "path": [alias],
        "locations": [{"line": 2, "column": 3}],
        "message": f"Could not resolve to a Repository with the name 'acme/{alias}'.",
    }


@given(st.lists(st.booleans(), min_size=1, max_size=12).filter(any))
def test_not_found_errors_at_paths_keep_the_data_and_name_each_path(nulled):
    data = {f"r{i}": None if gone else {"name": f"r{i}"} for i, gone in enumerate(nulled)}
    errors = [_missing(alias) for alias, node in data.items() if node is None]

    with pytest.raises(GraphQLNotFound) as raised:
        data_of(body={"data": data, "errors": errors}, url=URL)

    assert raised.value.data == data
    assert raised.value.not_found == {(e["path"][0],): e["message"] for e in errors}
    assert str(raised.value) == f"POST {URL} GraphQL errors: " + "; ".join(e["message"] for e in errors)


@pytest.mark.parametrize(
    "errors",
    [
        [{"type": "FORBIDDEN", "path": ["r0"], "message": "Resource not accessible by integration"}],
        [{"type": "NOT_FOUND", "message": "Could not resolve to a Repository with the name 'acme/x'."}],
        [{"type": "NOT_FOUND", "path": [], "message": "no path"}],
        [{"message": "Field 'nope' doesn't exist on type 'Repository'"}],
        [_missing("r0"), {"type": "RATE_LIMITED", "message": "API rate limit exceeded"}],
        "a bare string",
    ],
    ids=["other_type", "no_path", "empty_path", "no_type", "mixed", "not_a_list"],
)
def test_any_other_error_is_a_plain_graphql_error(errors):
    with pytest.raises(GraphQLError) as raised:
        data_of(body={"data": {"r0": None}, "errors": errors}, url=URL)
    assert type(raised.value) is GraphQLError
    assert str(raised.value).startswith(f"POST {URL} GraphQL errors: ")


def test_not_found_without_data_is_a_plain_graphql_error():
    with pytest.raises(GraphQLError) as raised:
        data_of(body={"errors": [_missing("r0")]}, url=URL)
    assert type(raised.value) is GraphQLError


def test_an_answer_without_errors_is_its_data():
    assert data_of(body={"data": {"r0": {"name": "a"}}}, url=URL) == {"r0": {"name": "a"}}
