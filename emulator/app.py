"""The ASGI application: the gate (emulator/gate.py: faults, versions, auth and limits), then the
routes of the service's data (here; the seat listings' in emulator/seat_routes.py, billing's in
emulator/billing_usage.py and emulator/billing_admin.py), the token and control routes
(emulator/control.py) and the vendors' (emulator/vendors.py)."""

from __future__ import annotations

from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp

from emulator.answers import (
    base_url,
    invalid,
    json_body,
    json_response,
    message,
    paged,
    principal_of,
)
from emulator.billing_admin import BillingAdminRoutes
from emulator.billing_exports import BillingExports
from emulator.billing_ledger import Ledger
from emulator.billing_usage import BillingUsageRoutes
from emulator.control import ControlRoutes
from emulator.gate import Gate
from emulator.hooks import Deliveries, push_payload
from emulator.reports import Reports
from emulator.seat_routes import SeatRoutes
from emulator.state import EmulatorState
from emulator.vendors import vendor_routes
from emulator.world_records import Account, Repository


class _Routes:
    def __init__(self, state: EmulatorState, reports: Reports, deliveries: Deliveries, graphql: Any) -> None:
        self.state = state
        self.reports = reports
        self.deliveries = deliveries
        self.graphql = graphql

    def _needs_user(self, request: Request) -> Response | None:
        principal = principal_of(request)
        if principal.kind == "anonymous":
            return message(401, "Requires authentication")
        if principal.account is None:
            return message(403, "Resource not accessible by integration")
        return None

    def _author(self, request: Request) -> Account | Response:
        """Who writes: the token's user, or for an installation the app's bot."""
        principal = principal_of(request)
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
        account = principal_of(request).account
        assert account is not None
        record = account.record(base_url(request)) | {"name": account.login.title(), "email": None}
        return json_response(request, record)

    async def rate_limit(self, request: Request) -> Response:
        principal = principal_of(request)
        resources = {}
        for resource in ("core", "graphql", "search"):
            s = self.state.limit_status(principal, resource)
            resources[resource] = {
                "limit": s.limit,
                "remaining": s.remaining,
                "reset": s.reset,
                "used": s.used,
                "resource": resource,
            }
        return json_response(request, {"resources": resources, "rate": resources["core"]})

    def _repo_or_404(self, request: Request) -> Repository | Response:
        owner, name = request.path_params["owner"], request.path_params["repo"]
        repo = self.state.world.repo(owner, name)
        principal = principal_of(request)
        if repo is None or (repo.private and principal.kind == "anonymous"):
            return message(404, "Not Found")
        return repo

    async def repository(self, request: Request) -> Response:
        repo = self._repo_or_404(request)
        if isinstance(repo, Response):
            return repo
        return json_response(request, repo.record(base_url(request)))

    async def create_repo(self, request: Request) -> Response:
        if problem := self._needs_user(request):
            return problem
        body = await json_body(request)
        if isinstance(body, Response):
            return body
        name = body.get("name")
        if not isinstance(name, str) or not name.strip():
            return message(422, "Repository creation failed: 'name' is required")
        account = principal_of(request).account
        assert account is not None
        repo = self.state.world.create_repo(
            owner=account,
            name=name.strip(),
            description=str(body.get("description") or ""),
            private=bool(body.get("private", False)),
            now=self.state.now(),
        )
        if repo is None:
            return message(422, "Repository creation failed: name already exists on this account")
        record = repo.record(base_url(request))
        self.deliveries.emit(
            "push", push_payload(record, account.record(base_url(request)), auto_init=bool(body.get("auto_init")))
        )
        return json_response(request, record, status=201)

    async def organization(self, request: Request) -> Response:
        """GET /orgs/{org}: the organization, its login spelled as it was created, whatever the
        case asked for (both dialects: the path has no product segment)."""
        account = self.state.world.find_org(request.path_params["org"])
        if account is None:
            return message(404, "Not Found")
        base = base_url(request)
        return JSONResponse(
            {
                "login": account.login,
                "id": account.id,
                "node_id": f"O_{account.id}",
                "url": f"{base}/orgs/{account.login}",
                "repos_url": f"{base}/orgs/{account.login}/repos",
                "members_url": f"{base}/orgs/{account.login}/members{{/member}}",
                "description": None,
                "type": "Organization",
            }
        )

    async def org_members(self, request: Request) -> Response:
        org = request.path_params["org"]
        if not self.state.world.has_org(org):
            return message(404, "Not Found")
        if principal_of(request).kind == "anonymous":
            return message(401, "Requires authentication")
        members = [m.record(base_url(request)) for m in self.state.world.members]
        return paged(request, members)

    async def org_repos(self, request: Request) -> Response:
        org = request.path_params["org"]
        if not self.state.world.has_org(org):
            return message(404, "Not Found")
        anonymous = principal_of(request).kind == "anonymous"
        repos = [r.record(base_url(request)) for r in self.state.world.org_repos(org) if not (anonymous and r.private)]
        return paged(request, repos)

    async def list_issues(self, request: Request) -> Response:
        repo = self._repo_or_404(request)
        if isinstance(repo, Response):
            return repo
        wanted = request.query_params.get("state", "open")
        if wanted not in ("open", "closed", "all"):
            return invalid(request, "Issue", "state", "invalid")
        with self.state.world.lock:
            issues = [i for i in repo.issues if wanted == "all" or i.state == wanted]
            # The public service lists newest first by default.
            issues.sort(key=lambda i: i.created_at, reverse=True)
            records = [i.record(base_url(request), repo) for i in issues]
        return paged(request, records)

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
        body = await json_body(request)
        if isinstance(body, Response):
            return body
        title = body.get("title")
        if not isinstance(title, str) or not title.strip():
            return invalid(request, "Issue", "title", "missing_field")
        labels = body.get("labels", [])
        if not isinstance(labels, list) or not all(isinstance(label, str) for label in labels):
            return invalid(request, "Issue", "labels", "invalid")
        if is_pull and not (isinstance(body.get("head"), str) and isinstance(body.get("base"), str)):
            field = "head" if not isinstance(body.get("head"), str) else "base"
            return invalid(request, "PullRequest", field, "missing_field")
        issue = self.state.world.create_issue(
            repo=repo,
            user=account,
            title=title,
            body=str(body.get("body") or ""),
            labels=[] if is_pull else labels,
            is_pull=is_pull,
            now=self.state.now(),
            head=str(body.get("head", "")),
            base=str(body.get("base", "")),
        )
        base = base_url(request)
        sender = account.record(base)
        if is_pull:
            record = issue.pull_record(base, repo)
            self.deliveries.emit(
                "pull_request",
                {
                    "action": "opened",
                    "number": issue.number,
                    "pull_request": record,
                    "repository": repo.record(base),
                    "sender": sender,
                },
            )
        else:
            record = issue.record(base, repo)
            self.deliveries.emit(
                "issues", {"action": "opened", "issue": record, "repository": repo.record(base), "sender": sender}
            )
        return json_response(request, record, status=201)

    async def report_metadata(self, request: Request) -> Response:
        scope = "organization" if request.url.path.startswith("/orgs/") else "enterprise"
        return self.reports.metadata(
            request, scope=scope, name=request.path_params["name"], report=request.path_params["report"]
        )

    async def download(self, request: Request) -> Response:
        return self.reports.download(
            request, key_text=request.path_params["key"], file_name=request.path_params["file"]
        )

    async def graphql_endpoint(self, request: Request) -> Response:
        return await self.graphql.handle(request)


def build_app(state: EmulatorState, deliveries: Deliveries) -> ASGIApp:
    from emulator.graphql_api import GraphQLEndpoint

    reports = Reports(state)
    routes = _Routes(state, reports, deliveries, GraphQLEndpoint(state))
    seats = SeatRoutes(state, reports)
    ledger = Ledger(state, reports)
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
        Route(f"/orgs/{{org}}/{product}/billing/seats", seats.seats),
        Route(f"/enterprises/{{name}}/{product}/billing/seats", seats.enterprise_seats),
        Route(f"/enterprises/{{name}}/{product}/metrics/reports/{{report:path}}", routes.report_metadata),
        Route("/_downloads/{key}/{file}", routes.download),
        Route("/graphql", routes.graphql_endpoint, methods=["POST"]),
        *BillingUsageRoutes(state, ledger).table(),
        *BillingAdminRoutes(state, ledger).table(),
        *BillingExports(state, ledger).table(),
        *ControlRoutes(state, deliveries).table(),
        *vendor_routes(state, reports.data),
    ]

    async def _not_found(request: Request, exc: Exception) -> Response:
        return message(404, "Not Found")

    async def _not_allowed(request: Request, exc: Exception) -> Response:
        return message(405, "Method Not Allowed")

    inner = Starlette(routes=table, exception_handlers={404: _not_found, 405: _not_allowed})
    return Gate(state, inner)
