import pytest

from pipelines.service import GraphQLError, ServiceClient

from .conftest import config_for

STATS = """
query Stats($owner: String!, $name: String!) {
  repository(owner: $owner, name: $name) { name stargazerCount issues { totalCount } }
}
"""


def test_a_query_with_typed_variables_returns_its_data(emu, tmp_path, clock) -> None:
    with ServiceClient(config=config_for(emu, tmp_path), clock=clock, sleep=clock.sleep) as client:
        repo = next(client.paginate(path="/orgs/acme/repos"))
        data = client.graphql(query=STATS, variables={"owner": "acme", "name": repo["name"]})
    assert data["repository"]["name"] == repo["name"]
    assert data["repository"]["issues"]["totalCount"] >= 0


def test_every_error_message_is_carried(emu, tmp_path, clock) -> None:
    query = 'query { repository(owner: "acme", name: "x") { nope alsoNope } }'
    with (
        ServiceClient(config=config_for(emu, tmp_path), clock=clock, sleep=clock.sleep) as client,
        pytest.raises(GraphQLError) as info,
    ):
        client.graphql(query=query)
    assert len(info.value.messages) == 2
    assert all("nope" in m.lower() for m in info.value.messages)


def test_errors_in_an_http_200_answer_still_raise(emu, tmp_path, clock) -> None:
    with ServiceClient(config=config_for(emu, tmp_path), clock=clock, sleep=clock.sleep) as client:
        with pytest.raises(GraphQLError) as info:
            client.graphql(query=STATS, variables={"owner": "acme", "name": "no-such-repository"})
        assert client.stats.retries == {}
    assert info.value.messages and "no-such-repository" in " ".join(info.value.messages)
    assert repr(info.value).startswith("GraphQLError(method='POST', url=")
