from hypothesis import given
from hypothesis import strategies as st

from pipelines.service.errors import (
    LinkExpired,
    PermissionDenied,
    RateLimited,
    TransportFailed,
    TruncatedDownload,
    redact_url,
)

_token = st.text(alphabet="abcdef0123456789", min_size=12, max_size=40)


@given(signature=_token, expires=st.integers(min_value=10**9, max_value=10**10))
def test_signed_query_never_survives_redaction(signature: str, expires: int) -> None:
    link = f"https://files.example/_downloads/k/0.ndjson?expires={expires}&signature={signature}"
    for keep in (True, False):
        assert signature not in redact_url(link, keep_query=keep)
    assert redact_url(link, keep_query=False) == "https://files.example/_downloads/k/0.ndjson"


@given(code=_token, page=st.integers(min_value=1, max_value=999))
def test_harmless_parameters_stay_and_secret_ones_go(code: str, page: int) -> None:
    url = redact_url(f"http://127.0.0.1:1/cb?page={page}&code={code}&access_token={code}")
    assert code not in url
    assert f"page={page}" in url


def test_userinfo_is_dropped_from_urls() -> None:
    assert redact_url("https://user:pw@host/x") == "https://host/x"


def test_errors_name_method_and_url_without_the_signature() -> None:
    link = "http://127.0.0.1:5/_downloads/r/1.ndjson?expires=1&signature=deadbeefcafe"
    for exc in (
        LinkExpired(url=link, status=403),
        TruncatedDownload(url=link, expected=100, received=10),
        TransportFailed(method="GET", url=link, reason="ReadError"),
    ):
        assert "deadbeefcafe" not in str(exc) + repr(exc)
        assert "GET" in repr(exc) and "/_downloads/r/1.ndjson" in repr(exc)


def test_rate_limited_names_the_reset_time() -> None:
    exc = RateLimited(method="GET", url="http://h/x", status=403, message="API rate limit exceeded", reset_at=1_800_000_000)
    assert "2027-01-15T08:00:00+00:00" in str(exc)
    assert exc.reset_at == 1_800_000_000


def test_permission_denied_carries_its_hint() -> None:
    exc = PermissionDenied(method="GET", url="http://h/orgs/a/x", status=403, message="nope", hint="Ask an owner.")
    assert str(exc) == "GET http://h/orgs/a/x failed with 403: nope. Ask an owner."
    assert repr(exc) == "PermissionDenied(method='GET', url='http://h/orgs/a/x', status=403)"
