"""`POST /api/v1/configs` stores a pasted config (and optional index.json) behind a short link;
`GET /api/v1/configs/{id}` returns it. There is no listing and nothing is searchable: a stored
config is found only by its id, which anyone holding the link may open.

CSRF: the endpoint is exempt from the token check (app/web/csrf.py) because it is a pure JSON
API that reads no cookie and acts for nobody: it stores anonymous content that an attacker could
store from their own client just as well. What a cross-site page could still attempt is closed
another way: the body must be `application/json` (a cross-site form cannot send that without a
CORS preflight, which this site never answers), and a request whose `Origin` names another site
is refused. Writes pass the SQLite write gate like every unsafe request, and each client may
store 30 an hour (app/shared_configs/limits.py).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from app.api.sizing_compute import InvalidInput, parse_json_body
from app.api.sizing_schemas import MAX_CONFIG_BYTES, MAX_INDEX_BYTES
from app.db.session import DbSession
from app.shared_configs.limits import SHARES_PER_CLIENT
from app.shared_configs.service import ShareError, load, store
from app.web.body_limit import capped_body_route
from app.web.throttle import throttle

MAX_BODY_BYTES = MAX_CONFIG_BYTES + MAX_INDEX_BYTES + 4 * 1024

router = APIRouter(
    prefix="/api/v1", tags=["configs"], route_class=capped_body_route(MAX_BODY_BYTES)
)


class ShareBody(BaseModel):
    config: dict[str, Any] = Field(description="A Hugging Face config.json as a JSON object.")
    index: dict[str, Any] | None = Field(
        None,
        description="Optional model.safetensors.index.json; only metadata.total_size and the "
        "tensor names the cross-check reads are kept.",
    )
    name: str | None = Field(None, max_length=100, description="Optional display name.")


class Shared(BaseModel):
    id: str = Field(description="The short id: the same content always gets the same one.")
    url: str = Field(description="The calculator with this config, e.g. /calculator?cfg=…")
    api_url: str
    created: bool = Field(description="False when this content was stored before.")


class SharedConfigOut(BaseModel):
    id: str
    config: dict[str, Any]
    index: dict[str, Any] | None
    name: str | None
    created_at: str


def _problem(status: int, message: str, field: str | None = None) -> JSONResponse:
    if field is None:
        return JSONResponse({"detail": message}, status_code=status)
    loc = ["body", *field.split(".")]
    detail = [{"loc": loc, "msg": f"{field}: {message}"[:500], "type": "invalid"}]
    return JSONResponse({"detail": detail}, status_code=status)


def _cross_site(request: Request) -> bool:
    origin = request.headers.get("origin")
    return bool(origin and origin != "null" and urlsplit(origin).netloc != request.url.netloc)


@router.post(
    "/configs",
    summary="Store a pasted config behind a short link",
    status_code=201,
    response_model=Shared,
    responses={
        200: {"model": Shared, "description": "This content was stored before: the same id."},
        403: {"description": "A browser request from another site."},
        413: {"description": f"Body over {MAX_BODY_BYTES // 1024:,} KiB."},
        415: {"description": "The body is not application/json."},
        422: {"description": "Not a config.json, or a bad index; `loc` names the field."},
        429: {"description": "Over 30 stores an hour from one client; see Retry-After."},
    },
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": ShareBody.model_json_schema()}},
        }
    },
)
async def post_config(request: Request, db: DbSession) -> Response:
    """Store a config (and optional index) so a link can share it: idempotent by content, never
    listed or searched, openable by anyone with the link. 30 an hour per client."""
    if _cross_site(request):
        return _problem(403, "Cross-site requests are not accepted.")
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != "application/json":
        return _problem(415, "Send the body as application/json.")
    # The limit first: a client over it costs no parse of a body of up to several MiB.
    if request.app.state.settings.rate_limits:
        limited = await run_in_threadpool(throttle, request, db, None, SHARES_PER_CLIENT)
        if limited is not None:
            return limited
    raw = await request.body()
    try:
        data = await run_in_threadpool(parse_json_body, raw)  # off the event loop
    except InvalidInput as invalid:
        return JSONResponse({"detail": invalid.errors}, status_code=422)
    if not isinstance(data, dict) or not isinstance(data.get("config"), dict):
        return _problem(422, "give config, a config.json object", "config")
    name = data.get("name")
    if name is not None and (not isinstance(name, str) or len(name) > 100):
        return _problem(422, "a name of at most 100 characters", "name")
    try:
        stored = await run_in_threadpool(store, db, data["config"], data.get("index"), name)
    except ShareError as error:
        return _problem(422, error.message, error.field)
    body = {
        "id": stored.id,
        "url": f"/calculator?cfg={stored.id}",
        "api_url": f"/api/v1/configs/{stored.id}",
        "created": stored.created,
    }
    return JSONResponse(body, status_code=201 if stored.created else 200)


@router.get(
    "/configs/{share_id}",
    summary="A stored config",
    response_model=SharedConfigOut,
    responses={404: {"description": "No config has this id."}},
)
async def get_config(share_id: str, request: Request, db: DbSession) -> Response:
    """The config (and compact index) stored under an id."""
    row = await request.app.state.db.lookup(db, load, db, share_id)
    if row is None:
        return _problem(404, "No stored config has this id.")
    return JSONResponse(
        {
            "id": row.id,
            "config": json.loads(row.config_text),
            "index": json.loads(row.index_text) if row.index_text else None,
            "name": row.name,
            "created_at": row.created_at.isoformat(),
        },
        headers={"cache-control": "public, max-age=86400, immutable"},
    )
