"""Assembles the site: every router, the error pages, static files, the template context, and
what the plumbing needs from the features (registered here, never imported by it)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import RedirectResponse, Response

from app.accounts.deps import safe_next
from app.content.schema import LEVEL_LABELS
from app.pages import (
    calculator,
    calculator_accuracy,
    content_pages,
    drill_sessions,
    drills,
    exercises,
    planner,
    question_page,
)
from app.web import errors, health, seo
from app.web.deps import base_url
from app.web.security import WASM_CONTENT_SECURITY_POLICY
from app.web.templating import SITE_NAME, SITE_TAGLINE


def site_context(request: Request) -> dict[str, Any]:
    root = base_url(request)
    return {
        "site_name": SITE_NAME,
        "site_tagline": SITE_TAGLINE,
        "base_url": root,
        "canonical_url": root + request.url.path,
        "nav_tracks": request.app.state.content.store.tracks,
        "level_labels": LEVEL_LABELS,
        "current_path": request.url.path,
        "return_to": return_to(request),
    }


SIGN_IN_PAGES = ("/signup", "/login", "/logout", "/forgot", "/reset")


def return_to(request: Request) -> str:
    """Where "Sign in" / "Sign up free" in the header bring the reader back to: this page (on
    the sign-in pages themselves, the page they were already headed back to). Same-site paths
    only (`safe_next`)."""
    path = request.url.path
    if path.startswith(SIGN_IN_PAGES):
        return safe_next(request.query_params.get("next"))
    return safe_next(path + (f"?{request.url.query}" if request.url.query else ""))


# Scripts whose response carries the WebAssembly policy: a dedicated worker takes its CSP from
# its own script's response, and the exercise worker compiles Pyodide.
WASM_SCRIPTS = frozenset({"js/exercise-worker.js"})


async def static(request: Request) -> Response:
    assets = request.app.state.assets
    path = request.path_params["path"]
    response = assets.response(request, path)
    if assets.canonical(path) in WASM_SCRIPTS:
        response.headers["content-security-policy"] = WASM_CONTENT_SECURITY_POLICY
    return response


def install(app: FastAPI) -> tuple[APIRouter, ...]:
    """Add the site's routes, handlers and context; returns the routers, included in order and
    without a prefix of their own (each router's prefix is in its routes' paths)."""
    from app.accounts import account_routes
    from app.accounts import routes as account_pages
    from app.accounts.deps import (
        LoginRequired,
        login_url,
        viewer_context,
        viewer_outside_routes,
    )
    from app.accounts.sessions import ANONYMOUS
    from app.api import checks as checks_api
    from app.api import configs as configs_api
    from app.api import content as content_api
    from app.api import docs as api_docs
    from app.api import drills as drills_api
    from app.api import plan as plan_api
    from app.api import sizing as sizing_api
    from app.discussion import moderation_routes, notice_routes, notify
    from app.discussion import routes as discussion_routes
    from app.discussion.context import notification_context
    from app.discussion.subjects import post_link
    from app.mocks import export as _mock_export  # noqa: F401  (registers the export)
    from app.mocks import interviewer_routes
    from app.mocks import routes as mock_routes
    from app.mocks import visitor_routes as visitor_mock_routes
    from app.plans import routes as plan_routes
    from app.practice import export as _practice_export  # noqa: F401  (registers the export)
    from app.practice import follow_up_routes, me_routes
    from app.practice import routes as practice_routes
    from app.search import routes as search_routes

    app.state.context_providers.extend([site_context, viewer_context, notification_context])
    errors.install_error_handlers(
        app, errors.ViewerHooks(find=viewer_outside_routes, anonymous=ANONYMOUS)
    )
    app.state.renderer.environment.globals["post_link"] = post_link

    @app.exception_handler(LoginRequired)
    async def login_required(request: Request, exc: LoginRequired) -> Response:
        target = login_url(exc.next_path)
        if request.headers.get("hx-request"):
            return Response(status_code=204, headers={"hx-redirect": target})
        return RedirectResponse(target, 303)

    # A plain Starlette route: static files skip the app's dependencies (no session, no CSRF).
    app.add_route("/static/{path:path}", static, include_in_schema=False)
    # Routers are matched in this order, each in turn: the API's hottest POST comes straight
    # after the health checks rather than behind twenty page routers (about 0.1 ms a request).
    routers = (
        health.router,
        sizing_api.router,
        seo.router,
        content_pages.router,
        question_page.router,
        account_pages.router,
        account_routes.router,
        discussion_routes.router,
        notice_routes.router,
        moderation_routes.router,
        notify.router,
        practice_routes.router,
        follow_up_routes.router,
        me_routes.router,
        visitor_mock_routes.router,
        interviewer_routes.router,
        plan_routes.router,
        mock_routes.router,
        search_routes.router,
        content_api.router,
        checks_api.router,
        api_docs.router,
        plan_api.router,
        configs_api.router,
        drills_api.router,
        calculator_accuracy.router,
        calculator.router,
        drill_sessions.router,
        planner.router,
        drills.router,
        exercises.router,
    )
    for router in routers:
        app.include_router(router)
    return routers
