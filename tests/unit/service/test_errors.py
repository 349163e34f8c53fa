from hypothesis import given
from hypothesis import strategies as st

from pipelines.service.errors import (
    ErrorDetail,
    LinkExpired,
    PermissionDenied,
    RateLimited,
    RequestFailed,
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
    exc = RateLimited(
        method="GET", url="http://h/x", status=403, message="API rate limit exceeded", reset_at=1_800_000_000
    )
    assert "2027-01-15T08:00:00+00:00" in str(exc)
    assert exc.reset_at == 1_800_000_000


def test_permission_denied_carries_its_hint() -> None:
    exc = PermissionDenied(method="GET", url="http://h/orgs/a/x", status=403, message="nope", hint="Ask an owner.")
    assert str(exc) == "GET http://h/orgs/a/x failed with 403: nope. Ask an owner."
    assert repr(exc) == "PermissionDenied(method='GET', url='http://h/orgs/a/x', status=403)"


def test_a_rate_limit_without_reset_says_so() -> None:
    exc = RateLimited(method="GET", url="http://h/x", status=429, message="API rate limit exceeded", reset_at=None)
    assert "no reset time given" in str(exc) and exc.reset_at is None


def test_errors_and_documentation_url_are_kept_and_shown_on_one_line() -> None:
    details = (ErrorDetail(resource="Issue", field="title", code="missing_field"), ErrorDetail(message="too long"))
    exc = RequestFailed(
        method="POST",
        url="http://h/repos/a/b/issues",
        status=422,
        message="Validation Failed",
        documentation_url="https://docs.example/rest/issues",
        details=details,
    )
    assert exc.details == details and exc.documentation_url == "https://docs.example/rest/issues"
    assert str(exc) == (
        "POST http://h/repos/a/b/issues failed with 422: Validation Failed (Issue.title missing_field; too long)"
        " [docs: https://docs.example/rest/issues]"
    )
    assert "\n" not in str(exc)


def test_advice_given_later_replaces_the_message() -> None:
    exc = RateLimited(method="GET", url="http://h/x", status=403, message="limit", reset_at=None)
    exc.advise("Waiting 60s would exceed SERVICE_RATE_LIMIT_MAX_WAIT (30s): raise it, or run again later")
    assert str(exc).endswith(
        "(no reset time given). Waiting 60s would exceed SERVICE_RATE_LIMIT_MAX_WAIT (30s):"
        " raise it, or run again later"
    )
