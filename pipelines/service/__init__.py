"""Talks to the platform (no Dagster, no DuckDB, nothing else of ``pipelines``).

The public surface is re-exported here; modules with a leading underscore are private.
"""

from pipelines.service._config import ServiceConfig
from pipelines.service._oauth import oauth_login
from pipelines.service._redaction import redact_secrets, register_secrets
from pipelines.service._retry import RetryPolicy
from pipelines.service._secret import Secret
from pipelines.service._stats import Budget, ClientStats
from pipelines.service._transports import forget_cached
from pipelines.service.access import AccessCheck, AccessProblem, ProblemKind, ScopeAccess, check_access
from pipelines.service.auth import AppAuth, TokenAuth
from pipelines.service.client import ServiceClient
from pipelines.service.dialect import DIALECTS, Dialect, get_dialect
from pipelines.service.errors import (
    AuthenticationFailed,
    ConfigError,
    ErrorDetail,
    GraphQLError,
    GraphQLNotFound,
    LinkExpired,
    MalformedResponse,
    Misdirected,
    NotFound,
    PermissionDenied,
    RateLimited,
    RequestFailed,
    SecondaryRateLimited,
    ServerError,
    ServiceError,
    TransportFailed,
    TruncatedDownload,
    Unreachable,
    VersionRejected,
    redact_url,
)
from pipelines.service.reports import ReportMetadata, ReportRef, ReportStream, fetch_report_metadata, open_report_file
from pipelines.service.scopes import canonical_scopes

__all__ = [
    "DIALECTS",
    "AccessCheck",
    "AccessProblem",
    "AppAuth",
    "AuthenticationFailed",
    "Budget",
    "ClientStats",
    "ConfigError",
    "Dialect",
    "ErrorDetail",
    "GraphQLError",
    "GraphQLNotFound",
    "LinkExpired",
    "MalformedResponse",
    "Misdirected",
    "NotFound",
    "PermissionDenied",
    "ProblemKind",
    "RateLimited",
    "ReportMetadata",
    "ReportRef",
    "ReportStream",
    "RequestFailed",
    "RetryPolicy",
    "ScopeAccess",
    "SecondaryRateLimited",
    "Secret",
    "ServerError",
    "ServiceClient",
    "ServiceConfig",
    "ServiceError",
    "TokenAuth",
    "TransportFailed",
    "TruncatedDownload",
    "Unreachable",
    "VersionRejected",
    "canonical_scopes",
    "check_access",
    "fetch_report_metadata",
    "forget_cached",
    "get_dialect",
    "oauth_login",
    "open_report_file",
    "redact_secrets",
    "redact_url",
    "register_secrets",
]
