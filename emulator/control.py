"""The routes that are not the service's data: token exchanges (an installation's access token,
the OAuth web flow) and the emulator's own control endpoints (/_emulator/*: stats, faults, the
clock, policies, webhooks, repository renames and deletions) that tests and the demo drive."""

from __future__ import annotations

import time
from datetime import date
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from emulator.answers import json_body, json_response, message, principal_of
from emulator.config import fault_spec_from_json
from emulator.errors import EmulatorError
from emulator.hooks import Deliveries
from emulator.state import EmulatorState


class ControlRoutes:
    def __init__(self, state: EmulatorState, deliveries: Deliveries) -> None:
        self.state = state
        self.deliveries = deliveries

    def table(self) -> list[Route]:
        return [
            Route("/app/installations/{installation_id}/access_tokens", self.installation_token, methods=["POST"]),
            Route("/login/oauth/authorize", self.oauth_authorize),
            Route("/login/oauth/access_token", self.oauth_access_token, methods=["POST"]),
            Route("/_emulator/stats", self.admin_stats),
            Route("/_emulator/faults", self.admin_faults, methods=["POST"]),
            Route("/_emulator/clock", self.admin_clock, methods=["POST"]),
            Route("/_emulator/policy", self.admin_policy, methods=["POST"]),
            Route("/_emulator/hooks", self.admin_hooks, methods=["POST"]),
            Route("/_emulator/rename", self.admin_rename, methods=["POST"]),
            Route("/_emulator/delete", self.admin_delete, methods=["POST"]),
        ]

    async def installation_token(self, request: Request) -> Response:
        principal = principal_of(request)
        if principal.kind != "app":
            return message(401, "A JSON web token (app JWT) is required for this endpoint")
        if request.path_params["installation_id"] != str(self.state.installation_id):
            return message(404, "Not Found")
        token, expires = self.state.issue_installation_token()
        expires_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(expires))
        product = self.state.wire.product
        return json_response(
            request,
            {
                "token": token,
                "expires_at": expires_at,
                "permissions": {f"organization_{product}_metrics": "read", "metadata": "read", "issues": "write"},
                "repository_selection": "all",
            },
            status=201,
        )

    async def oauth_authorize(self, request: Request) -> Response:
        client_id = request.query_params.get("client_id")
        redirect_uri = request.query_params.get("redirect_uri")
        if client_id != self.state.client_id:
            return message(404, "Unknown client_id")
        if not redirect_uri or not redirect_uri.startswith(("http://127.0.0.1", "http://localhost")):
            return message(422, "redirect_uri must be a loopback address")
        code = self.state.issue_oauth_code(redirect_uri)
        params = {"code": code}
        if "state" in request.query_params:
            params["state"] = request.query_params["state"]
        separator = "&" if "?" in redirect_uri else "?"
        return RedirectResponse(f"{redirect_uri}{separator}{urlencode(params)}", status_code=302)

    async def oauth_access_token(self, request: Request) -> Response:
        content_type = request.headers.get("content-type", "")
        if content_type.startswith("application/json"):
            body = await json_body(request)
            if isinstance(body, Response):
                return body
        else:
            body = dict(await request.form())
        if body.get("client_id") != self.state.client_id or body.get("client_secret") != self.state.client_secret:
            return JSONResponse(
                {
                    "error": "incorrect_client_credentials",
                    "error_description": "The client_id and/or client_secret passed are incorrect.",
                }
            )
        token = self.state.redeem_oauth_code(str(body.get("code", "")), body.get("redirect_uri"))
        if token is None:
            return JSONResponse(
                {"error": "bad_verification_code", "error_description": "The code passed is incorrect or expired."}
            )
        return JSONResponse({"access_token": token, "token_type": "bearer", "scope": "read:org"})

    async def admin_stats(self, request: Request) -> Response:
        stats = self.state.stats() | {"deliveries": list(self.deliveries.log)}
        return JSONResponse(stats)

    async def admin_faults(self, request: Request) -> Response:
        body = await json_body(request)
        if isinstance(body, Response):
            return body
        try:
            faults = fault_spec_from_json(body)
        except (EmulatorError, TypeError, ValueError) as exc:
            return message(422, str(exc))
        self.state.set_faults(faults)
        return JSONResponse(faults.to_json())

    async def admin_clock(self, request: Request) -> Response:
        body = await json_body(request)
        if isinstance(body, Response):
            return body
        try:
            day = date.fromisoformat(str(body.get("today")))
        except ValueError:
            return message(422, "'today' must be a date in YYYY-MM-DD form")
        self.state.set_today(day)
        return JSONResponse({"today": day.isoformat()})

    async def admin_policy(self, request: Request) -> Response:
        body = await json_body(request)
        if isinstance(body, Response):
            return body
        scope, name, enabled = body.get("scope"), body.get("name"), body.get("enabled")
        if scope not in ("organization", "enterprise") or not isinstance(name, str) or not isinstance(enabled, bool):
            return message(422, "policy needs scope organization|enterprise, name and enabled")
        with self.state.lock:
            self.state.policies[(scope, name)] = enabled
        return JSONResponse({"scope": scope, "name": name, "enabled": enabled})

    async def admin_rename(self, request: Request) -> Response:
        body = await json_body(request)
        if isinstance(body, Response):
            return body
        full_name, new_name = body.get("full_name"), body.get("name")
        if not isinstance(full_name, str) or "/" not in full_name or not isinstance(new_name, str) or not new_name:
            return message(422, "rename needs full_name (owner/name) and name")
        owner, name = full_name.split("/", 1)
        repo = self.state.world.rename_repo(owner=owner, name=name, new_name=new_name)
        if repo is None:
            return message(404, f"no repository {full_name}, or {owner}/{new_name} exists already")
        return JSONResponse({"id": repo.id, "full_name": repo.full_name})

    async def admin_delete(self, request: Request) -> Response:
        body = await json_body(request)
        if isinstance(body, Response):
            return body
        full_name = body.get("full_name")
        if not isinstance(full_name, str) or "/" not in full_name:
            return message(422, "delete needs full_name (owner/name)")
        owner, name = full_name.split("/", 1)
        repo = self.state.world.delete_repo(owner=owner, name=name)
        if repo is None:
            return message(404, f"no repository {full_name}")
        return JSONResponse({"id": repo.id, "full_name": repo.full_name})

    async def admin_hooks(self, request: Request) -> Response:
        body = await json_body(request)
        if isinstance(body, Response):
            return body
        try:
            hook = self.deliveries.add(body)
        except EmulatorError as exc:
            return message(422, str(exc))
        return JSONResponse(
            {
                "id": hook.id,
                "url": hook.url,
                "content_type": hook.content_type,
                "events": list(hook.events),
                "active": hook.active,
            },
            status_code=201,
        )
