"""The ASGI application: a gate for faults, versions, auth and limits, then the routes."""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import Callable
from datetime import date
from email.utils import formatdate
from functools import partial
from typing import Any
from urllib.parse import urlencode

import jwt
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from emulator.config import fault_spec_from_json
from emulator.errors import EmulatorError
from emulator.hooks import Deliveries
from emulator.reports import Reports, close_connection
from emulator.seats import DEFAULT_PER_PAGE as SEATS_PER_PAGE
from emulator.seats import enterprise_grants, enterprise_seat_count, enterprise_seat_records, seat_count, seat_records
from emulator.state import EmulatorState, Principal
from emulator.world import Account, Repository

_MAX_JWT_LIFETIME = 600
_CLOCK_SKEW = 60
_PER_PAGE_MAX = 100
_CONTENT_CREATION = ("/issues", "/pulls", "/user/repos")


def _message(status: int, message: str, headers: dict[str, str] | None = None, *,
             documentation_url: str | None = None) -> JSONResponse:
    body: dict[str, Any] = {"message": message}
    if documentation_url:
        body["documentation_url"] = documentation_url
    return JSONResponse(body, status_code=status, headers=headers)


def _invalid(request: Request, resource: str, field: str, code: str) -> JSONResponse:
    """The public service's 422: a fixed message, the failed fields in `errors[]`, a docs link."""
    docs = request.scope["emulator.docs_url"]
    return JSONResponse({"message": "Validation Failed",
                         "errors": [{"resource": resource, "field": field, "code": code}],
                         "documentation_url": f"{docs}/issues/issues"}, status_code=422)


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


def _json_response(request: Request, data: Any, status: int = 200) -> Response:
    """JSON with an ETag on GETs; a matching If-None-Match answers 304 (which is not counted)."""
    body = json.dumps(data, separators=(",", ":")).encode()
    if request.method != "GET" or status != 200:
        return Response(body, status_code=status, media_type="application/json; charset=utf-8")
    etag = 'W/"' + hashlib.sha256(body).hexdigest()[:40] + '"'
    candidates = {t.strip() for t in request.headers.get("if-none-match", "").split(",")}
    if etag in candidates or etag.removeprefix("W/") in candidates:
        return Response(status_code=304, headers={"etag": etag})
    return Response(body, media_type="application/json; charset=utf-8", headers={"etag": etag})


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


class _Gate:
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
            await self._answer(scope, receive, send, kind, None,
                               _message(status, "Server Error" if status == 500 else "Bad Gateway"))
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

    def _check_headers(self, request: Request, kind: str) -> Response | None:
        wire = self.state.wire
        version = request.headers.get(wire.version_header)
        if kind != "graphql" and version is not None and version not in wire.versions:
            supported = ", ".join(sorted(wire.versions))
            return _message(400, f"Unsupported API version {version!r} in {wire.version_header}; "
                                 f"supported: {supported}")
        accept = request.headers.get("accept")
        if accept:
            offered = {part.split(";")[0].strip().lower() for part in accept.split(",")}
            allowed = wire.media_types | {"application/json", "*/*", "application/*"}
            if not offered & allowed:
                return _message(415, f"Unsupported 'Accept' header: {accept!r}; use one of "
                                     f"{', '.join(sorted(wire.media_types))}")
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
            return _message(401, "Authorization must be 'token <TOKEN>' or 'Bearer <TOKEN>'")
        if credential.count(".") == 2:
            problem = self._jwt_problem(credential)
            if problem:
                return _message(401, problem)
            if not request.url.path.startswith("/app/"):
                return _message(403, "An app JWT only authenticates /app endpoints; exchange it "
                                     "for an installation token")
            return Principal(kind="app", bucket=f"app:{state.app_id}", account=None,
                             metrics_permission=False, owner=False)
        principal = state.principal_for_token(credential)
        if principal is None:
            return _message(401, "Bad credentials")
        return principal

    def _jwt_problem(self, token: str) -> str | None:
        state = self.state
        try:
            claims = jwt.decode(token, state.app_key.public_key(), algorithms=["RS256"],
                                options={"require": ["iat", "exp", "iss"], "verify_iat": False},
                                leeway=_CLOCK_SKEW)
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
                return _message(403, "You have triggered an abuse detection mechanism. Please wait "
                                     "a few minutes before you try again.", documentation_url=docs)
            retry_after = {"retry-after": "60"} if faults.secondary_limit_kind == "retry_after" else None
            return _message(faults.limit_status, "You have exceeded a secondary rate limit. Please "
                            "wait a few minutes before you try again.", retry_after,
                            documentation_url=f"{docs}#about-secondary-rate-limits")
        if request.url.path == "/rate_limit":
            return None
        status = state.limit_status(principal, "graphql" if kind == "graphql" else "core")
        if status.remaining <= 0:
            request.scope["emulator.limit_refusal"] = True
            who = principal.account.login if principal.account else principal.bucket
            return _message(faults.limit_status, f"API rate limit exceeded for {who}.",
                            documentation_url=docs)
        if (request.method == "POST" and request.url.path.endswith(_CONTENT_CREATION)
                and state.content_creation_burst(principal)):
            request.scope["emulator.limit_refusal"] = True
            return _message(403, "You have exceeded a secondary rate limit for content "
                                 "creation. Please wait before you try again.",
                            {"retry-after": "60"}, documentation_url=docs)
        return None

    async def _answer(self, scope: Scope, receive: Receive, send: Send, kind: str,
                      principal: Principal | None, app: ASGIApp) -> None:
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
                    headers.append((state.wire.media_type_header.encode(),
                                    state.wire.media_type_value.encode()))
                state.count_request(kind, status)
                message = {**message, "headers": headers}
            await send(message)

        await app(scope, receive, _send)


class _Routes:
    def __init__(self, state: EmulatorState, reports: Reports, deliveries: Deliveries,
                 graphql: Any) -> None:
        self.state = state
        self.reports = reports
        self.deliveries = deliveries
        self.graphql = graphql

    def base(self, request: Request) -> str:
        return str(request.base_url).rstrip("/")

    def _principal(self, request: Request) -> Principal:
        return request.scope["emulator.principal"]

    def _needs_user(self, request: Request) -> Response | None:
        principal = self._principal(request)
        if principal.kind == "anonymous":
            return _message(401, "Requires authentication")
        if principal.account is None:
            return _message(403, "Resource not accessible by integration")
        return None

    def _author(self, request: Request) -> Account | Response:
        """Who writes: the token's user, or for an installation the app's bot."""
        principal = self._principal(request)
        if principal.kind == "installation":
            return self.state.bot
        if problem := self._needs_user(request):
            return problem
        assert principal.account is not None
        return principal.account

    # REST
    async def user(self, request: Request) -> Response:
        if problem := self._needs_user(request):
            return problem
        account = self._principal(request).account
        assert account is not None
        record = account.record(self.base(request)) | {"name": account.login.title(), "email": None}
        return _json_response(request, record)

    async def rate_limit(self, request: Request) -> Response:
        principal = self._principal(request)
        resources = {}
        for resource in ("core", "graphql", "search"):
            s = self.state.limit_status(principal, resource)
            resources[resource] = {"limit": s.limit, "remaining": s.remaining, "reset": s.reset,
                                   "used": s.used, "resource": resource}
        return _json_response(request, {"resources": resources, "rate": resources["core"]})

    def _repo_or_404(self, request: Request) -> Repository | Response:
        owner, name = request.path_params["owner"], request.path_params["repo"]
        repo = self.state.world.repo(owner, name)
        principal = self._principal(request)
        if repo is None or (repo.private and principal.kind == "anonymous"):
            return _message(404, "Not Found")
        return repo

    async def repository(self, request: Request) -> Response:
        repo = self._repo_or_404(request)
        if isinstance(repo, Response):
            return repo
        return _json_response(request, repo.record(self.base(request)))

    async def create_repo(self, request: Request) -> Response:
        if problem := self._needs_user(request):
            return problem
        body = await _json_body(request)
        if isinstance(body, Response):
            return body
        name = body.get("name")
        if not isinstance(name, str) or not name.strip():
            return _message(422, "Repository creation failed: 'name' is required")
        account = self._principal(request).account
        assert account is not None
        repo = self.state.world.create_repo(owner=account, name=name.strip(),
                                            description=str(body.get("description") or ""),
                                            private=bool(body.get("private", False)),
                                            now=self.state.now())
        if repo is None:
            return _message(422, "Repository creation failed: name already exists on this account")
        record = repo.record(self.base(request))
        self.deliveries.emit("push", _push_payload(record, account.record(self.base(request)),
                                                   auto_init=bool(body.get("auto_init"))))
        return _json_response(request, record, status=201)

    async def organization(self, request: Request) -> Response:
        """GET /orgs/{org}: the organization, its login spelled as it was created, whatever the
        case asked for (both dialects: the path has no product segment)."""
        account = self.state.world.find_org(request.path_params["org"])
        if account is None:
            return _message(404, "Not Found")
        base = self.base(request)
        return JSONResponse({
            "login": account.login, "id": account.id, "node_id": f"O_{account.id}",
            "url": f"{base}/orgs/{account.login}", "repos_url": f"{base}/orgs/{account.login}/repos",
            "members_url": f"{base}/orgs/{account.login}/members{{/member}}", "description": None,
            "type": "Organization",
        })

    async def org_members(self, request: Request) -> Response:
        org = request.path_params["org"]
        if not self.state.world.has_org(org):
            return _message(404, "Not Found")
        if self._principal(request).kind == "anonymous":
            return _message(401, "Requires authentication")
        members = [m.record(self.base(request)) for m in self.state.world.members]
        return self._page(request, members)

    async def org_repos(self, request: Request) -> Response:
        org = request.path_params["org"]
        if not self.state.world.has_org(org):
            return _message(404, "Not Found")
        anonymous = self._principal(request).kind == "anonymous"
        repos = [r.record(self.base(request)) for r in self.state.world.org_repos(org)
                 if not (anonymous and r.private)]
        return self._page(request, repos)

    async def list_issues(self, request: Request) -> Response:
        repo = self._repo_or_404(request)
        if isinstance(repo, Response):
            return repo
        wanted = request.query_params.get("state", "open")
        if wanted not in ("open", "closed", "all"):
            return _invalid(request, "Issue", "state", "invalid")
        with self.state.world.lock:
            issues = [i for i in repo.issues if wanted == "all" or i.state == wanted]
            # The public service lists newest first by default.
            issues.sort(key=lambda i: i.created_at, reverse=True)
            records = [i.record(self.base(request), repo) for i in issues]
        return self._page(request, records)

    def _page(self, request: Request, items: list[dict[str, Any]]) -> Response:
        paging = self._paging(request, default_per_page=30)
        if isinstance(paging, Response):
            return paging
        page, per_page = paging
        response = _json_response(request, items[(page - 1) * per_page: page * per_page])
        return self._with_links(request, response, page=page, per_page=per_page, total=len(items))

    def _paging(self, request: Request, *, default_per_page: int) -> tuple[int, int] | Response:
        try:
            page = max(1, int(request.query_params.get("page", "1")))
            per_page = min(_PER_PAGE_MAX, max(1, int(request.query_params.get("per_page", str(default_per_page)))))
        except ValueError:
            return _message(422, "Validation Failed: 'page' and 'per_page' must be integers")
        return page, per_page

    def _with_links(self, request: Request, response: Response, *, page: int, per_page: int,
                    total: int) -> Response:
        last = max(1, -(-total // per_page))
        links = []
        params = dict(request.query_params)

        def _url(number: int) -> str:
            return f"{self.base(request)}{request.url.path}?" + urlencode(
                params | {"page": str(number), "per_page": str(per_page)})

        if page < last:
            links.append(f'<{_url(page + 1)}>; rel="next"')
            links.append(f'<{_url(last)}>; rel="last"')
        if page > 1:
            links.append(f'<{_url(1)}>; rel="first"')
            links.append(f'<{_url(min(page - 1, last))}>; rel="prev"')
        if links:
            response.headers["link"] = ", ".join(links)
        return response

    async def seats(self, request: Request) -> Response:
        """The organization's seats (docs/extensions.md), paged by the Link header."""
        data = self.reports.data_for("organization", request.path_params["org"])
        if data is None:
            return _message(404, "Not Found")
        extra = self.state.config.unassigned_seats + self.state.config.unlandable_seats
        return await self._seat_listing(request, owner=f"an organization owner or billing manager of {data.org}",
                                        list_seats=partial(seat_records, data, **self._extra_seats()),
                                        total=seat_count(data) + extra, entries=seat_count(data) + extra)

    async def enterprise_seats(self, request: Request) -> Response:
        """The enterprise's seats: one per granting organization or enterprise team of a user,
        `total_seats` counting each user once (docs/extensions.md)."""
        name = request.path_params["name"]
        data = self.reports.data_for("enterprise", name)
        if data is None:
            return _message(404, "Not Found")
        extra = self.state.config.unassigned_seats + self.state.config.unlandable_seats
        return await self._seat_listing(request, owner=f"an enterprise owner or billing manager of {name}",
                                        list_seats=partial(enterprise_seat_records, data, **self._extra_seats()),
                                        total=enterprise_seat_count(data) + extra,
                                        entries=len(enterprise_grants(data)) + extra)

    def _extra_seats(self) -> dict[str, int]:
        """The seats after the users' in both listings (EmulatorConfig.unassigned_seats, unlandable_seats)."""
        return {"unassigned": self.state.config.unassigned_seats, "unlandable": self.state.config.unlandable_seats}

    async def _seat_listing(self, request: Request, *, owner: str, list_seats: Callable[..., list[dict[str, Any]]],
                            total: int, entries: int) -> Response:
        principal = self._principal(request)
        if principal.kind == "anonymous":
            return _message(401, "Requires authentication")
        if not (principal.owner or principal.metrics_permission):
            return _message(403, f"Resource not accessible: you must be {owner} "
                                 f"to list its {self.state.wire.product} seats")
        paging = self._paging(request, default_per_page=SEATS_PER_PAGE)
        if isinstance(paging, Response):
            return paging
        page, per_page = paging
        start = (page - 1) * per_page
        # The first listing of a day finds every user's last activity (cached per day): off the loop.
        records = await asyncio.to_thread(list_seats, today=self.state.today(), base_url=self.base(request),
                                          start=start, stop=start + per_page)
        response = _json_response(request, {"total_seats": total, "seats": records})
        # Pages hold seats, of which a user may have several: the last page follows the entries.
        return self._with_links(request, response, page=page, per_page=per_page, total=entries)

    async def create_issue(self, request: Request) -> Response:
        return await self._create_issue(request, is_pull=False)

    async def create_pull(self, request: Request) -> Response:
        return await self._create_issue(request, is_pull=True)

    async def _create_issue(self, request: Request, *, is_pull: bool) -> Response:
        account = self._author(request)
        if isinstance(account, Response):
            return account
        repo = self._repo_or_404(request)
        if isinstance(repo, Response):
            return repo
        body = await _json_body(request)
        if isinstance(body, Response):
            return body
        title = body.get("title")
        if not isinstance(title, str) or not title.strip():
            return _invalid(request, "Issue", "title", "missing_field")
        labels = body.get("labels", [])
        if not isinstance(labels, list) or not all(isinstance(label, str) for label in labels):
            return _invalid(request, "Issue", "labels", "invalid")
        if is_pull and not (isinstance(body.get("head"), str) and isinstance(body.get("base"), str)):
            field = "head" if not isinstance(body.get("head"), str) else "base"
            return _invalid(request, "PullRequest", field, "missing_field")
        issue = self.state.world.create_issue(
            repo=repo, user=account, title=title, body=str(body.get("body") or ""),
            labels=[] if is_pull else labels, is_pull=is_pull, now=self.state.now(),
            head=str(body.get("head", "")), base=str(body.get("base", "")))
        base = self.base(request)
        sender = account.record(base)
        if is_pull:
            record = issue.pull_record(base, repo)
            self.deliveries.emit("pull_request", {"action": "opened", "number": issue.number,
                                                  "pull_request": record,
                                                  "repository": repo.record(base),
                                                  "sender": sender})
        else:
            record = issue.record(base, repo)
            self.deliveries.emit("issues", {"action": "opened", "issue": record,
                                            "repository": repo.record(base), "sender": sender})
        return _json_response(request, record, status=201)

    async def installation_token(self, request: Request) -> Response:
        principal = self._principal(request)
        if principal.kind != "app":
            return _message(401, "A JSON web token (app JWT) is required for this endpoint")
        if request.path_params["installation_id"] != str(self.state.installation_id):
            return _message(404, "Not Found")
        token, expires = self.state.issue_installation_token()
        expires_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(expires))
        product = self.state.wire.product
        return _json_response(request, {
            "token": token, "expires_at": expires_at,
            "permissions": {f"organization_{product}_metrics": "read", "metadata": "read",
                            "issues": "write"},
            "repository_selection": "all",
        }, status=201)

    async def report_metadata(self, request: Request) -> Response:
        scope = "organization" if request.url.path.startswith("/orgs/") else "enterprise"
        response = self.reports.metadata(request, scope=scope, name=request.path_params["name"],
                                         report=request.path_params["report"])
        return response

    async def download(self, request: Request) -> Response:
        return self.reports.download(request, key_text=request.path_params["key"],
                                     file_name=request.path_params["file"])

    async def graphql_endpoint(self, request: Request) -> Response:
        return await self.graphql.handle(request)

    # OAuth
    async def oauth_authorize(self, request: Request) -> Response:
        client_id = request.query_params.get("client_id")
        redirect_uri = request.query_params.get("redirect_uri")
        if client_id != self.state.client_id:
            return _message(404, "Unknown client_id")
        if not redirect_uri or not redirect_uri.startswith(("http://127.0.0.1", "http://localhost")):
            return _message(422, "redirect_uri must be a loopback address")
        code = self.state.issue_oauth_code(redirect_uri)
        params = {"code": code}
        if "state" in request.query_params:
            params["state"] = request.query_params["state"]
        separator = "&" if "?" in redirect_uri else "?"
        return RedirectResponse(f"{redirect_uri}{separator}{urlencode(params)}", status_code=302)

    async def oauth_access_token(self, request: Request) -> Response:
        content_type = request.headers.get("content-type", "")
        if content_type.startswith("application/json"):
            body = await _json_body(request)
            if isinstance(body, Response):
                return body
        else:
            body = dict(await request.form())
        if body.get("client_id") != self.state.client_id or \
                body.get("client_secret") != self.state.client_secret:
            return JSONResponse({"error": "incorrect_client_credentials",
                                 "error_description": "The client_id and/or client_secret passed are incorrect."})
        token = self.state.redeem_oauth_code(str(body.get("code", "")), body.get("redirect_uri"))
        if token is None:
            return JSONResponse({"error": "bad_verification_code",
                                 "error_description": "The code passed is incorrect or expired."})
        return JSONResponse({"access_token": token, "token_type": "bearer", "scope": "read:org"})

    # admin
    async def admin_stats(self, request: Request) -> Response:
        stats = self.state.stats() | {"deliveries": list(self.deliveries.log)}
        return JSONResponse(stats)

    async def admin_faults(self, request: Request) -> Response:
        body = await _json_body(request)
        if isinstance(body, Response):
            return body
        try:
            faults = fault_spec_from_json(body)
        except (EmulatorError, TypeError, ValueError) as exc:
            return _message(422, str(exc))
        self.state.set_faults(faults)
        return JSONResponse(faults.to_json())

    async def admin_clock(self, request: Request) -> Response:
        body = await _json_body(request)
        if isinstance(body, Response):
            return body
        try:
            day = date.fromisoformat(str(body.get("today")))
        except ValueError:
            return _message(422, "'today' must be a date in YYYY-MM-DD form")
        self.state.set_today(day)
        return JSONResponse({"today": day.isoformat()})

    async def admin_policy(self, request: Request) -> Response:
        body = await _json_body(request)
        if isinstance(body, Response):
            return body
        scope, name, enabled = body.get("scope"), body.get("name"), body.get("enabled")
        if scope not in ("organization", "enterprise") or not isinstance(name, str) \
                or not isinstance(enabled, bool):
            return _message(422, "policy needs scope organization|enterprise, name and enabled")
        with self.state.lock:
            self.state.policies[(scope, name)] = enabled
        return JSONResponse({"scope": scope, "name": name, "enabled": enabled})

    async def admin_rename(self, request: Request) -> Response:
        body = await _json_body(request)
        if isinstance(body, Response):
            return body
        full_name, new_name = body.get("full_name"), body.get("name")
        if not isinstance(full_name, str) or "/" not in full_name or not isinstance(new_name, str) or not new_name:
            return _message(422, "rename needs full_name (owner/name) and name")
        owner, name = full_name.split("/", 1)
        repo = self.state.world.rename_repo(owner=owner, name=name, new_name=new_name)
        if repo is None:
            return _message(404, f"no repository {full_name}, or {owner}/{new_name} exists already")
        return JSONResponse({"id": repo.id, "full_name": repo.full_name})

    async def admin_delete(self, request: Request) -> Response:
        body = await _json_body(request)
        if isinstance(body, Response):
            return body
        full_name = body.get("full_name")
        if not isinstance(full_name, str) or "/" not in full_name:
            return _message(422, "delete needs full_name (owner/name)")
        owner, name = full_name.split("/", 1)
        repo = self.state.world.delete_repo(owner=owner, name=name)
        if repo is None:
            return _message(404, f"no repository {full_name}")
        return JSONResponse({"id": repo.id, "full_name": repo.full_name})

    async def admin_hooks(self, request: Request) -> Response:
        body = await _json_body(request)
        if isinstance(body, Response):
            return body
        try:
            hook = self.deliveries.add(body)
        except EmulatorError as exc:
            return _message(422, str(exc))
        return JSONResponse({"id": hook.id, "url": hook.url, "content_type": hook.content_type,
                             "events": list(hook.events), "active": hook.active}, status_code=201)


async def _json_body(request: Request) -> dict[str, Any] | Response:
    try:
        body = json.loads(await request.body() or b"{}")
    except ValueError:
        return _message(400, "Problems parsing JSON")
    if not isinstance(body, dict):
        return _message(400, "Body must be a JSON object")
    return body


def _push_payload(repo: dict[str, Any], sender: dict[str, Any], *, auto_init: bool) -> dict[str, Any]:
    after = hashlib.sha1(f"{repo['full_name']}:init".encode()).hexdigest()
    commits = []
    if auto_init:
        commits.append({"id": after, "tree_id": hashlib.sha1(after.encode()).hexdigest(),
                        "distinct": True, "message": "Initial commit", "timestamp": repo["created_at"],
                        "url": f"{repo['html_url']}/commit/{after}",
                        "author": {"name": sender["login"], "username": sender["login"]},
                        "committer": {"name": sender["login"], "username": sender["login"]},
                        "added": ["README.md"], "removed": [], "modified": []})
    return {
        "ref": "refs/heads/main", "before": "0" * 40, "after": after if auto_init else "0" * 40,
        "created": True, "deleted": False, "forced": False, "base_ref": None,
        "compare": f"{repo['html_url']}/commits/main", "commits": commits,
        "head_commit": commits[0] if commits else None, "repository": repo,
        "pusher": {"name": sender["login"], "email": None}, "sender": sender,
    }


def build_app(state: EmulatorState, deliveries: Deliveries) -> ASGIApp:
    from emulator.graphql_api import GraphQLEndpoint

    reports = Reports(state)
    routes = _Routes(state, reports, deliveries, GraphQLEndpoint(state))
    product = state.wire.product
    table = [
        Route("/user", routes.user),
        Route("/user/repos", routes.create_repo, methods=["POST"]),
        Route("/rate_limit", routes.rate_limit),
        Route("/repos/{owner}/{repo}", routes.repository),
        Route("/repos/{owner}/{repo}/issues", routes.list_issues, methods=["GET"]),
        Route("/repos/{owner}/{repo}/issues", routes.create_issue, methods=["POST"]),
        Route("/repos/{owner}/{repo}/pulls", routes.create_pull, methods=["POST"]),
        Route("/orgs/{org}", routes.organization),
        Route("/orgs/{org}/members", routes.org_members),
        Route("/orgs/{org}/repos", routes.org_repos),
        Route(f"/orgs/{{name}}/{product}/metrics/reports/{{report:path}}", routes.report_metadata),
        Route(f"/orgs/{{org}}/{product}/billing/seats", routes.seats),
        Route(f"/enterprises/{{name}}/{product}/billing/seats", routes.enterprise_seats),
        Route(f"/enterprises/{{name}}/{product}/metrics/reports/{{report:path}}",
              routes.report_metadata),
        Route("/_downloads/{key}/{file}", routes.download),
        Route("/app/installations/{installation_id}/access_tokens", routes.installation_token,
              methods=["POST"]),
        Route("/graphql", routes.graphql_endpoint, methods=["POST"]),
        Route("/login/oauth/authorize", routes.oauth_authorize),
        Route("/login/oauth/access_token", routes.oauth_access_token, methods=["POST"]),
        Route("/_emulator/stats", routes.admin_stats),
        Route("/_emulator/faults", routes.admin_faults, methods=["POST"]),
        Route("/_emulator/clock", routes.admin_clock, methods=["POST"]),
        Route("/_emulator/policy", routes.admin_policy, methods=["POST"]),
        Route("/_emulator/hooks", routes.admin_hooks, methods=["POST"]),
        Route("/_emulator/rename", routes.admin_rename, methods=["POST"]),
        Route("/_emulator/delete", routes.admin_delete, methods=["POST"]),
    ]

    async def _not_found(request: Request, exc: Exception) -> Response:
        return _message(404, "Not Found")

    async def _not_allowed(request: Request, exc: Exception) -> Response:
        return _message(405, "Method Not Allowed")

    inner = Starlette(routes=table, exception_handlers={404: _not_found, 405: _not_allowed})
    return _Gate(state, inner)
