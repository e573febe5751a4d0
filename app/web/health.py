"""/healthz: is this process able to serve? (checks the database and the loaded content)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, PlainTextResponse
from sqlalchemy.exc import SQLAlchemyError

router = APIRouter(include_in_schema=False)


@router.get("/healthz")
def healthz(request: Request) -> JSONResponse:
    store = request.app.state.content.store
    body: dict[str, object] = {
        "status": "ok",
        "database": "ok",
        "content": {
            "questions": len(store.questions),
            "concepts": len(store.concepts),
            "fingerprint": store.fingerprint,
        },
        "build": request.app.state.build_id,
    }
    try:
        request.app.state.db.ping()
    except SQLAlchemyError:
        body.update(status="unavailable", database="unreachable")
        return JSONResponse(body, status_code=503, headers={"cache-control": "no-store"})
    return JSONResponse(body, headers={"cache-control": "no-store"})


@router.get("/ping")
async def ping() -> PlainTextResponse:
    """The cheapest endpoint through the whole stack: the baseline for benchmarks."""
    return PlainTextResponse("ok", headers={"cache-control": "no-store"})
