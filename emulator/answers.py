"""What the emulator's routes answer with, as the service shapes it: error bodies, the 422 of a
failed field, JSON with an ETag, a request's JSON body, and pages with their Link header."""

from __future__ import annotations

import hashlib
import json
from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from emulator.state import Principal

_PER_PAGE_MAX = 100


def message(
    status: int, text: str, headers: dict[str, str] | None = None, *, documentation_url: str | None = None
) -> JSONResponse:
    body: dict[str, Any] = {"message": text}
    if documentation_url:
        body["documentation_url"] = documentation_url
    return JSONResponse(body, status_code=status, headers=headers)


def invalid(request: Request, resource: str, field: str, code: str) -> JSONResponse:
    """The public service's 422: a fixed message, the failed fields in `errors[]`, a docs link."""
    docs = request.scope["emulator.docs_url"]
    return JSONResponse(
        {
            "message": "Validation Failed",
            "errors": [{"resource": resource, "field": field, "code": code}],
            "documentation_url": f"{docs}/issues/issues",
        },
        status_code=422,
    )


def json_response(request: Request, data: Any, status: int = 200) -> Response:
    """JSON with an ETag on GETs; a matching If-None-Match answers 304 (which is not counted)."""
    body = json.dumps(data, separators=(",", ":")).encode()
    if request.method != "GET" or status != 200:
        return Response(body, status_code=status, media_type="application/json; charset=utf-8")
    etag = 'W/"' + hashlib.sha256(body).hexdigest()[:40] + '"'
    candidates = {t.strip() for t in request.headers.get("if-none-match", "").split(",")}
    if etag in candidates or etag.removeprefix("W/") in candidates:
        return Response(status_code=304, headers={"etag": etag})
    return Response(body, media_type="application/json; charset=utf-8", headers={"etag": etag})


async def json_body(request: Request) -> dict[str, Any] | Response:
    try:
        body = json.loads(await request.body() or b"{}")
    except ValueError:
        return message(400, "Problems parsing JSON")
    if not isinstance(body, dict):
        return message(400, "Body must be a JSON object")
    return body


def principal_of(request: Request) -> Principal:
    """Who the gate found the request is from (emulator/gate.py)."""
    return request.scope["emulator.principal"]


def base_url(request: Request) -> str:
    return str(request.base_url).rstrip("/")


def paged(request: Request, items: list[dict[str, Any]]) -> Response:
    asked = page_params(request, default_per_page=30)
    if isinstance(asked, Response):
        return asked
    page, per_page = asked
    response = json_response(request, items[(page - 1) * per_page : page * per_page])
    return with_links(request, response, page=page, per_page=per_page, total=len(items))


def page_params(request: Request, *, default_per_page: int) -> tuple[int, int] | Response:
    try:
        page = max(1, int(request.query_params.get("page", "1")))
        per_page = min(_PER_PAGE_MAX, max(1, int(request.query_params.get("per_page", str(default_per_page)))))
    except ValueError:
        return message(422, "Validation Failed: 'page' and 'per_page' must be integers")
    return page, per_page


def with_links(request: Request, response: Response, *, page: int, per_page: int, total: int) -> Response:
    last = max(1, -(-total // per_page))
    links = []
    params = dict(request.query_params)

    def _url(number: int) -> str:
        return f"{base_url(request)}{request.url.path}?" + urlencode(
            params | {"page": str(number), "per_page": str(per_page)}
        )

    if page < last:
        links.append(f'<{_url(page + 1)}>; rel="next"')
        links.append(f'<{_url(last)}>; rel="last"')
    if page > 1:
        links.append(f'<{_url(1)}>; rel="first"')
        links.append(f'<{_url(min(page - 1, last))}>; rel="prev"')
    if links:
        response.headers["link"] = ", ".join(links)
    return response
