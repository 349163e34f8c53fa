"""What `metrics-etl forget` takes: a login, a numeric user id, or an email (how the vendors name
people); nothing else is spelled like one."""

import pytest

from pipelines.cli._privacy import _PERSON


@pytest.mark.parametrize("who", ["dev-00018", "@dev-00018", "1000018", "Dev.Name+tag@Example.co.uk"])
def test_a_login_an_id_or_an_email_is_taken(who: str) -> None:
    assert _PERSON.fullmatch(who)


@pytest.mark.parametrize("who", ["@", "a@b", "x y@z.com", 'x"@z.com', "dev-00018/x", "'; DROP x; --", "a@@b.com"])
def test_nothing_else_is(who: str) -> None:
    assert not _PERSON.fullmatch(who)
