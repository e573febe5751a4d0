"""Error pages and JSON errors: clear messages, the right status, never a stack trace."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from sqlalchemy.exc import (
    DataError,
    DBAPIError,
    IntegrityError,
    OperationalError,
    SQLAlchemyError,
)
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException

logger = logging.getLogger("prefill")

TITLES = {
    400: "That request did not make sense",
    403: "You can’t do that",
    404: "Page not found",
    405: "Method not allowed",
    409: "That clashed with something else",
    413: "That was too large",
    422: "Some of that input was not valid",
    429: "Slow down a little",
    500: "Something went wrong on our side",
    503: "Prefill is briefly unavailable",
}


def wants_json(request: Request) -> bool:
    if request.url.path.startswith("/api/"):
        return True
    accept = request.headers.get("accept", "")
    return "application/json" in accept and "text/html" not in accept


def error_response(
    request: Request, status: int, message: str, headers: dict[str, str] | None = None
) -> Response:
    if wants_json(request):
        return JSONResponse({"detail": message}, status_code=status, headers=headers)
    renderer = request.app.state.renderer
    _forget_unreadable_viewer(request)
    values = {
        "status": status,
        "title": TITLES.get(status, "Something went wrong"),
        "message": message,
    }
    try:
        return renderer.page(
            request, "error.html", values, status_code=status, headers=headers or {}
        )
    except Exception:  # the error page itself must never fail
        logger.exception("error page failed to render")
        return Response(message, status_code=status, media_type="text/plain", headers=headers)


@dataclass(frozen=True)
class ViewerHooks:
    """What an error page needs from the accounts feature, registered when the site is
    assembled (the plumbing imports no feature): `find` looks up the signed-in member where no
    route ran, returning the session it opened (or None); `anonymous` is the visitor's viewer."""

    find: Callable[[Request], Session | None]
    anonymous: object


def _page_for_member_too(
    request: Request, status: int, message: str, headers: dict[str, str]
) -> Response:
    """An error page with the member's own header, even where no route ran to find them."""
    hooks: ViewerHooks | None = getattr(request.app.state, "viewer_hooks", None)
    db = None
    try:
        db = hooks.find(request) if hooks is not None else None
    except SQLAlchemyError:
        logger.warning("could not look up the viewer for an error page", exc_info=True)
    try:
        response = error_response(request, status, message, headers)
        if db is not None:
            response.headers["cache-control"] = "private, no-store"
        return response
    finally:
        if db is not None:
            db.close()


def _forget_unreadable_viewer(request: Request) -> None:
    """After a failed transaction the member's row is expired and its session closed: draw the
    error page as for a visitor rather than fail to draw it."""
    viewer = getattr(request.state, "viewer", None)
    if viewer is None or viewer.user is None:
        return
    try:
        viewer.user.display_name  # noqa: B018  (touch it: does it still load?)
    except SQLAlchemyError:
        hooks: ViewerHooks | None = getattr(request.app.state, "viewer_hooks", None)
        request.state.viewer = hooks.anonymous if hooks is not None else None


def _describe_validation(error: RequestValidationError) -> str:
    parts = []
    for detail in error.errors():
        location = ".".join(str(p) for p in detail.get("loc", ()) if p not in {"query", "body"})
        parts.append(f"{location}: {detail.get('msg')}" if location else str(detail.get("msg")))
    return "; ".join(parts) or "invalid input"


def install_error_handlers(app: FastAPI, viewer_hooks: ViewerHooks | None = None) -> None:
    app.state.viewer_hooks = viewer_hooks

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> Response:
        detail = exc.detail if isinstance(exc.detail, str) else TITLES.get(exc.status_code, "")
        if exc.status_code == 404 and detail == "Not Found":
            detail = "There is nothing at this address. It may have moved, or the link is mistyped."
        if exc.status_code == 405 and detail == "Method Not Allowed":
            detail = "This address does not accept that kind of request."
        headers = dict(exc.headers or {})
        if wants_json(request) or request.url.path.startswith("/static/"):
            return error_response(request, exc.status_code, detail, headers)
        return await run_in_threadpool(
            _page_for_member_too, request, exc.status_code, detail, headers
        )

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> Response:
        if wants_json(request):
            # Only the parts that are always JSON-safe: echoing `input` back could hold NaN or
            # huge values, which would turn a 422 into a 500.
            details = [
                {
                    "loc": [str(p) for p in e.get("loc", ())],
                    "msg": str(e.get("msg")),
                    "type": str(e.get("type")),
                }
                for e in exc.errors()
            ]
            return JSONResponse({"detail": details}, status_code=422)
        if exc.errors() and all((e.get("loc") or ("",))[0] == "path" for e in exc.errors()):
            # An id out of range in the address names nothing, like any address that is not.
            detail = "There is nothing at this address. It may have moved, or the link is mistyped."
            return await run_in_threadpool(_page_for_member_too, request, 404, detail, {})
        return error_response(request, 422, _describe_validation(exc))

    @app.exception_handler(IntegrityError)
    async def clashed(request: Request, exc: IntegrityError) -> Response:
        # A DBAPIError too, but the database answered: the write clashed with a row another
        # request wrote at the same moment (a unique key). Retrying in 5 s would not help, and
        # "unavailable" would hide it; the services upsert where a clash is expected.
        logger.warning("integrity error: %s", exc)
        message = (
            "That clashed with a change saved at the same moment (another tab, or a double "
            "click). Reload the page to see what was saved, then try again."
        )
        return error_response(request, 409, message)

    @app.exception_handler(DataError)
    async def refused_value(request: Request, exc: DataError) -> Response:
        # A DBAPIError too, but the database is up: it refused a value the request carried (a
        # number out of its column's range, text it cannot store). Retrying would not help.
        logger.warning("data error: %s", exc)
        message = (
            "The database refused a value in what you sent (a number out of range, or text it "
            "cannot store), so nothing was saved. Go back to keep your text, change the value "
            "and try again."
        )
        return error_response(request, 422, message)

    @app.exception_handler(OperationalError)
    @app.exception_handler(DBAPIError)
    @app.exception_handler(PoolTimeout)
    async def database_unavailable(request: Request, exc: Exception) -> Response:
        logger.warning("database error: %s", exc)
        message = "The database is not answering right now. Please try again in a few seconds."
        return error_response(request, 503, message, {"retry-after": "5"})

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> Response:
        logger.exception("unhandled error on %s %s", request.method, request.url.path)
        return error_response(request, 500, "We have logged it and will look into it.")
