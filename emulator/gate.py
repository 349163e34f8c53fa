"""The gate in front of the emulator's routes: faults, API versions and media types, who a
request is from (tokens, app JWTs, installations), and the rate limits, as the service answers
them; every answer carries the emulated clock's Date header."""

from __future__ import annotations

import asyncio
import time
from email.utils import formatdate

import jwt
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from emulator.answers import message
from emulator.report_files import close_connection
from emulator.state import EmulatorState, Principal
from emulator.vendor_http import PREFIX as VENDORS_PREFIX

_MAX_JWT_LIFETIME = 600
_CLOCK_SKEW = 60
_CONTENT_CREATION = ("/issues", "/pulls", "/user/repos")


def _path_kind(path: str) -> str:
    if path.startswith("/_downloads/"):
        return "download"
    if path.startswith("/login/oauth/"):
        return "oauth"
    if path == "/graphql":
        return "graphql"
    if "/metrics/reports/" in path:
        return "report_metadata"
    if path.endswith("/billing/seats"):
        return "seats"
    if path.startswith("/app/"):
        return "app"
    return "rest"


def _dated(send: Send, state: EmulatorState) -> Send:
    """Every answer carries the emulated clock's Date header, as the real service's carry its
    own: a client judges whether a day was final on the service's clock (uvicorn's own Date
    header, the host's clock, is turned off in server.py)."""

    async def send_dated(message: Message) -> None:
        if message["type"] == "http.response.start":
            stamp = formatdate(state.now().timestamp(), usegmt=True).encode()
            message = {**message, "headers": [*message.get("headers", []), (b"date", stamp)]}
        await send(message)

    return send_dated


class Gate:
    """Pure ASGI wrapper: sees the raw connection, so it can drop it or cut a body short."""

    def __init__(self, state: EmulatorState, inner: ASGIApp) -> None:
        self.state = state
        self.inner = inner

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.inner(scope, receive, send)
            return
        cycle = getattr(send, "__self__", None)
        scope["emulator.transport"] = getattr(cycle, "transport", None)
        send = _dated(send, self.state)
        path: str = scope["path"]
        if path.startswith("/_emulator/"):
            await self.inner(scope, receive, send)
            return
        if path.startswith(VENDORS_PREFIX + "/"):
            # A vendor's API answers with its own auth, limits and errors (emulator/vendors.py).
            await self.inner(scope, receive, self._counted(send, scope))
            return
        kind = _path_kind(path)
        state = self.state
        scope["emulator.docs_url"] = state.wire.docs_url
        faults = state.faults
        if state.draw(faults.drop_rate):
            state.count_fault("drop")
            state.count_request(kind, 0)
            await close_connection(scope)
            return
        if state.draw(faults.slow_rate):
            state.count_fault("slow")
            await asyncio.sleep(faults.slow_ms / 1000)
        if state.draw(faults.error_rate):
            state.count_fault("error")
            status = state.pick((500, 502))
            await self._answer(
                scope, receive, send, kind, None, message(status, "Server Error" if status == 500 else "Bad Gateway")
            )
            return
        if kind in ("download", "oauth"):
            await self._answer(scope, receive, send, kind, None, self.inner)
            return
        request = Request(scope)
        early = self._check_headers(request, kind)
        if early is None:
            principal_or_error = self._authenticate(request)
            if isinstance(principal_or_error, Response):
                early = principal_or_error
            else:
                principal = principal_or_error
                scope["emulator.principal"] = principal
                early = self._check_limits(request, principal, kind)
                await self._answer(scope, receive, send, kind, principal, early or self.inner)
                return
        await self._answer(scope, receive, send, kind, None, early)

    def _counted(self, send: Send, scope: Scope) -> Send:
        async def send_counted(message: Message) -> None:
            if message["type"] == "http.response.start":
                self.state.count_request("vendor", message["status"], f"{scope['method']} {scope['path']}")
            await send(message)

        return send_counted

    def _check_headers(self, request: Request, kind: str) -> Response | None:
        wire = self.state.wire
        version = request.headers.get(wire.version_header)
        if kind != "graphql" and version is not None and version not in wire.versions:
            supported = ", ".join(sorted(wire.versions))
            return message(400, f"Unsupported API version {version!r} in {wire.version_header}; supported: {supported}")
        accept = request.headers.get("accept")
        if accept:
            offered = {part.split(";")[0].strip().lower() for part in accept.split(",")}
            allowed = wire.media_types | {"application/json", "*/*", "application/*"}
            if not offered & allowed:
                return message(
                    415, f"Unsupported 'Accept' header: {accept!r}; use one of {', '.join(sorted(wire.media_types))}"
                )
        return None

    def _authenticate(self, request: Request) -> Principal | Response:
        state = self.state
        header = request.headers.get("authorization")
        if not header:
            host = request.client.host if request.client else "unknown"
            return state.anonymous(host)
        scheme, _, credential = header.partition(" ")
        credential = credential.strip()
        if scheme.lower() not in ("token", "bearer") or not credential:
            return message(401, "Authorization must be 'token <TOKEN>' or 'Bearer <TOKEN>'")
        if credential.count(".") == 2:
            problem = self._jwt_problem(credential)
            if problem:
                return message(401, problem)
            if not request.url.path.startswith("/app/"):
                return message(
                    403, "An app JWT only authenticates /app endpoints; exchange it for an installation token"
                )
            return Principal(
                kind="app", bucket=f"app:{state.app_id}", account=None, metrics_permission=False, owner=False
            )
        principal = state.principal_for_token(credential)
        if principal is None:
            return message(401, "Bad credentials")
        return principal

    def _jwt_problem(self, token: str) -> str | None:
        state = self.state
        try:
            claims = jwt.decode(
                token,
                state.app_key.public_key(),
                algorithms=["RS256"],
                options={"require": ["iat", "exp", "iss"], "verify_iat": False},
                leeway=_CLOCK_SKEW,
            )
        except jwt.ExpiredSignatureError:
            return "The app JWT has expired ('exp' is in the past)"
        except jwt.InvalidSignatureError:
            return "The app JWT's signature does not verify against the app's public key"
        except jwt.PyJWTError as exc:
            return f"A JSON web token could not be decoded: {type(exc).__name__}"
        iat, exp = claims["iat"], claims["exp"]
        if not isinstance(iat, int) or iat > time.time() + _CLOCK_SKEW:
            return "'Issued at' claim ('iat') must be an integer time in the past"
        if not isinstance(exp, int) or exp - iat > _MAX_JWT_LIFETIME:
            return "'Expiration time' claim ('exp') is too far in the future (at most 10 minutes after 'iat')"
        if str(claims["iss"]) != str(state.app_id):
            return f"'Issuer' claim ('iss') does not name this app (expected {state.app_id})"
        return None

    def _check_limits(self, request: Request, principal: Principal, kind: str) -> Response | None:
        state = self.state
        faults = state.faults
        docs = f"{state.wire.docs_url}/overview/rate-limits-for-the-rest-api"
        if state.draw(faults.secondary_limit_rate):
            state.count_fault("secondary_limit")
            request.scope["emulator.limit_refusal"] = True
            if faults.secondary_limit_kind == "abuse":
                # The older wording, still met in the wild: always a 403, no retry-after.
                return message(
                    403,
                    "You have triggered an abuse detection mechanism. Please wait a few minutes before you try again.",
                    documentation_url=docs,
                )
            retry_after = {"retry-after": "60"} if faults.secondary_limit_kind == "retry_after" else None
            return message(
                faults.limit_status,
                "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
                retry_after,
                documentation_url=f"{docs}#about-secondary-rate-limits",
            )
        if request.url.path == "/rate_limit":
            return None
        status = state.limit_status(principal, "graphql" if kind == "graphql" else "core")
        if status.remaining <= 0:
            request.scope["emulator.limit_refusal"] = True
            who = principal.account.login if principal.account else principal.bucket
            return message(faults.limit_status, f"API rate limit exceeded for {who}.", documentation_url=docs)
        if (
            request.method == "POST"
            and request.url.path.endswith(_CONTENT_CREATION)
            and state.content_creation_burst(principal)
        ):
            request.scope["emulator.limit_refusal"] = True
            return message(
                403,
                "You have exceeded a secondary rate limit for content creation. Please wait before you try again.",
                {"retry-after": "60"},
                documentation_url=docs,
            )
        return None

    async def _answer(
        self, scope: Scope, receive: Receive, send: Send, kind: str, principal: Principal | None, app: ASGIApp
    ) -> None:
        state = self.state
        resource = "graphql" if kind == "graphql" else "core"
        counted = principal is not None and scope["path"] != "/rate_limit"

        async def _send(message: Message) -> None:
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = list(message.get("headers", []))
                if principal is not None:
                    # A refusal for a spent budget or a secondary limit does not use the budget.
                    refused = scope.get("emulator.limit_refusal", False)
                    if counted and status != 304 and status < 500 and not refused:
                        state.spend(principal, resource)
                    limit = state.limit_status(principal, resource)
                    headers += [
                        (b"x-ratelimit-limit", str(limit.limit).encode()),
                        (b"x-ratelimit-remaining", str(limit.remaining).encode()),
                        (b"x-ratelimit-used", str(limit.used).encode()),
                        (b"x-ratelimit-resource", resource.encode()),
                    ]
                    if not state.faults.omit_rate_limit_reset:
                        headers.append((b"x-ratelimit-reset", str(limit.reset).encode()))
                if kind not in ("download",):
                    headers.append((state.wire.media_type_header.encode(), state.wire.media_type_value.encode()))
                state.count_request(kind, status, f"{scope['method']} {scope['path']}")
                message = {**message, "headers": headers}
            await send(message)

        await app(scope, receive, _send)
