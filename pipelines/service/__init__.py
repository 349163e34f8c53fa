"""Talks to the platform (no Dagster, no DuckDB). The public surface is re-exported here."""

from pipelines.service.auth import AppAuth, TokenAuth, oauth_login
from pipelines.service.client import Budget, ClientStats, RetryPolicy, ServiceClient
from pipelines.service.dialect import DIALECTS, Dialect, get_dialect
from pipelines.service.errors import (
    AuthenticationFailed,
    ConfigError,
    GraphQLError,
    LinkExpired,
    MalformedResponse,
    NotFound,
    PermissionDenied,
    RateLimited,
    RequestFailed,
    SecondaryRateLimited,
    ServerError,
    ServiceError,
    TransportFailed,
    TruncatedDownload,
    VersionRejected,
    redact_url,
)
from pipelines.service.reports import ReportMetadata, ReportRef, ReportStream, fetch_report_metadata, open_report_file

__all__ = [
    "DIALECTS",
    "AppAuth",
    "AuthenticationFailed",
    "Budget",
    "ClientStats",
    "ConfigError",
    "Dialect",
    "GraphQLError",
    "LinkExpired",
    "MalformedResponse",
    "NotFound",
    "PermissionDenied",
    "RateLimited",
    "ReportMetadata",
    "ReportRef",
    "ReportStream",
    "RequestFailed",
    "RetryPolicy",
    "SecondaryRateLimited",
    "ServerError",
    "ServiceClient",
    "ServiceError",
    "TokenAuth",
    "TransportFailed",
    "TruncatedDownload",
    "VersionRejected",
    "fetch_report_metadata",
    "get_dialect",
    "oauth_login",
    "open_report_file",
    "redact_url",
]
