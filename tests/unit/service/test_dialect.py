import pytest

from pipelines.service import ConfigError, get_dialect


def test_dialects_name_their_report_paths_and_headers() -> None:
    service = get_dialect("service")
    github = get_dialect("github")
    assert (
        service.report_path(scope="organization", scope_name="acme", kind="28-day", level="aggregate")
        == "/orgs/acme/assistant/metrics/reports/organization-28-day/latest"
    )
    assert (
        github.report_path(scope="enterprise", scope_name="corp", kind="1-day", level="user")
        == "/enterprises/corp/copilot/metrics/reports/users-1-day"
    )
    assert (
        service.report_path(scope="enterprise", scope_name="corp", kind="1-day", level="aggregate")
        == "/enterprises/corp/assistant/metrics/reports/enterprise-1-day"
    )
    assert github.version_header == "X-GitHub-Api-Version"
    assert github.media_type == "application/vnd.github+json"
    assert github.event_header == "x-github-event"
    assert service.version_header == "X-Service-Api-Version"


def test_unknown_dialect_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="SERVICE_DIALECT"):
        get_dialect("gitlab")
