"""The application factory: `uvicorn app.main:create_app --factory` serves the site."""

from __future__ import annotations

import gc
import hashlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import cache, partial
from pathlib import Path

import anyio.to_thread
from fastapi import Depends, FastAPI
from jinja2 import Environment
from starlette.middleware.gzip import GZipMiddleware

from app.accounts.deps import get_viewer
from app.accounts.session_cache import SessionCache
from app.api.sizing_memo import QuickConfigs, SizingMemo
from app.content.diagrams import stylesheet_classes
from app.content.holder import ContentHolder, StaticContent
from app.content.loader import load_content
from app.content.render_cache import RenderCache, code_version
from app.content.schema import LEVEL_LABELS
from app.content.store import ContentStore
from app.db.base import utcnow
from app.db.session import Database
from app.db.write_gate import WriteGate, write_gate_middleware
from app.discussion.versions import version_map
from app.mail import make_mailer
from app.mail_worker import MailWorker
from app.ratelimit import RateLimiter
from app.settings import PROJECT_ROOT, Settings
from app.web.assets import AssetManifest
from app.web.body_limit import BodyReadMiddleware, refuse_unread_body, route_limits
from app.web.caching import GZIP_LEVEL, GZIP_MINIMUM_SIZE, PageCache, ShortLived
from app.web.client_address import ForwardedHeadersMiddleware, Network, parse_networks
from app.web.compute_pool import SIZING_TIME_LIMIT_SECONDS, ComputePool
from app.web.cookies import policy_for
from app.web.csrf import CSRFCookieMiddleware, verify_csrf
from app.web.head import HeadAsGetMiddleware
from app.web.public_url import public_url_problem
from app.web.security import SecurityHeadersMiddleware
from app.web.templating import Renderer, make_environment

STATIC_DIR = PROJECT_ROOT / "static"
# What the compute pool's workers run: the sizing and planner APIs' work, the calculator's
# pasted configs.
COMPUTE_MODULES = (
    "app.api.sizing_compute",
    "app.api.plan_compute",
    "app.pages.calculator_view",
    "app.pages.planner_compute",
)
TEMPLATE_DIR = PROJECT_ROOT / "templates"
API_DESCRIPTION = """Prefill's JSON API: content (questions and concept cards, respecting access),
and the KV-cache / GPU-memory sizing core. Sizes are integers in bytes; KiB/MiB/GiB are 1024-based."""


def _build_id(assets: AssetManifest) -> str:
    """Changes whenever templates or static files change: part of every page's ETag."""
    digest = hashlib.sha256(assets.fingerprint.encode())
    for path in sorted(TEMPLATE_DIR.rglob("*")):
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def create_app(settings: Settings | None = None, *, content: ContentStore | None = None) -> FastAPI:
    """Build the app. `content` lets tests share one loaded ContentStore across many apps."""
    settings = settings or Settings()
    proxies = _startup_checks(settings)
    database = Database(
        settings.database_url,
        pool_size=settings.db_pool_size,
        max_overflow=settings.db_max_overflow,
        live_cache=settings.live_cache,
    )

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        # Enough worker threads for every request that holds a connection slot, plus spares
        # for requests that use none (anyio's default is 40).
        limiter = anyio.to_thread.current_default_thread_limiter()
        limiter.total_tokens = max(limiter.total_tokens, database.slots + 10)
        # Content, templates and caches live as long as the process: move them out of the
        # collector's sight, so full collections stay short (they showed up as p99 latency).
        if settings.env != "test":  # a test process builds hundreds of apps; let them go
            gc.collect()
            gc.freeze()
        from app.search.indexer import index_at_startup

        index_at_startup(_app.state)  # idempotent across processes: keyed by the fingerprint
        database.start()  # PostgreSQL: listen for changes to cached sessions, state, threads
        if settings.mail_worker == "inprocess":
            mail_worker.start()
        yield
        await anyio.to_thread.run_sync(mail_worker.stop)
        if _app.state.compute_pool is not None:
            _app.state.compute_pool.shutdown()
        database.dispose()

    app = FastAPI(
        # Every route: a refused body stops here; the viewer is known; unsafe methods need a
        # CSRF token.
        dependencies=[Depends(refuse_unread_body), Depends(verify_csrf), Depends(get_viewer)],
        title="Prefill API",
        version="1",
        description=API_DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,  # app/api/docs.py serves Swagger UI from static/, under the CSP
        redoc_url=None,
        openapi_url="/openapi.json",
    )
    assets = AssetManifest(STATIC_DIR)
    app.state.settings = settings
    app.state.cookies = policy_for(settings)
    app.state.secret_key = settings.resolved_secret_key()
    app.state.db = database
    app.state.assets = assets
    app.state.build_id = _build_id(assets)
    app.state.context_providers = []
    app.state.mailer = make_mailer(settings)
    mail_worker = MailWorker(database, app.state.mailer)
    app.state.mail_worker = mail_worker
    app.state.rate_limiter = RateLimiter()
    app.state.compute_pool = (
        ComputePool(settings.sizing_workers, SIZING_TIME_LIMIT_SECONDS, preload=COMPUTE_MODULES)
        if settings.sizing_workers
        else None
    )
    app.state.write_gate = WriteGate(database, enabled=settings.is_sqlite)
    app.state.page_cache = PageCache()
    # What "now" is for mocks, plans and drill sessions: a test may hold it (app/web/deps.py).
    app.state.clock = utcnow
    app.state.sizing_memo = SizingMemo()
    app.state.quick_configs = QuickConfigs()
    app.state.short_lived = ShortLived()
    app.state.session_cache = SessionCache(database.invalidations)
    app.state.thread_versions = version_map(database.invalidations)
    app.state.forget_versions = app.state.short_lived.clear

    environment = make_environment(
        {
            "static_url": assets.url,
            "level_labels": LEVEL_LABELS,
            # The text face, fetched with the HTML rather than after the stylesheet: it is then
            # usually in place before first paint, and text does not reflow when it arrives.
            "text_font_url": next(iter(assets.font_urls("css/layout.css")), None),
        },
        reload=settings.env == "development",
    )
    app.state.renderer = Renderer(environment)

    if content is not None:
        app.state.content = StaticContent(content)
    else:
        app.state.content = _content_holder(settings, environment)

    from app.pages.site import install as install_site

    routers = install_site(app)
    app.add_middleware(GZipMiddleware, minimum_size=GZIP_MINIMUM_SIZE, compresslevel=GZIP_LEVEL)
    app.add_middleware(write_gate_middleware(app.state.write_gate))
    # Outside the write gate: a body is read whole (capped, against a clock) before a request
    # may take the write slot, so a stalled upload holds nothing that others wait for.
    app.add_middleware(BodyReadMiddleware, limit_for=route_limits(routers))
    app.add_middleware(CSRFCookieMiddleware, policy=app.state.cookies)
    app.add_middleware(SecurityHeadersMiddleware, always_hsts=settings.is_production)
    app.add_middleware(HeadAsGetMiddleware)  # HEAD is a GET to everything inside
    app.add_middleware(ForwardedHeadersMiddleware, proxies=proxies)  # outermost: runs first
    return app


def _startup_checks(settings: Settings) -> list[Network]:
    """Refuse settings no process should serve with; returns the trusted proxy networks."""
    try:
        proxies = parse_networks(settings.forwarded_allow_ips)
    except ValueError:
        raise RuntimeError(
            f"PREFILL_FORWARDED_ALLOW_IPS is {settings.forwarded_allow_ips!r}: list the proxies' "
            "addresses or networks (e.g. 10.0.0.5, 10.1.0.0/16), or leave it empty."
        ) from None
    if settings.is_production:
        problem = public_url_problem(settings.public_url)
        if problem:
            # Links in mail, canonical URLs and cached pages would otherwise follow the Host header.
            raise RuntimeError(f"PREFILL_ENV=production needs PREFILL_PUBLIC_URL: {problem}")
    return proxies


def _content_holder(settings: Settings, environment: Environment) -> ContentHolder:
    load = partial(
        load_site_content,
        settings.content_dir,
        environment,
        render_cache=settings.render_cache,
        secret_key=settings.resolved_secret_key(),
    )
    reload = settings.reload_content or settings.env == "development"
    return ContentHolder(settings.content_dir, load, reload=reload)


@cache
def render_code_version() -> str:
    """What this process stamps its render cache with: the code, templates and static assets it
    renders with, hashed once, at its first content load. Hashing the files again at a later
    reload would stamp pages this process rendered with its older code with the newer code's
    version, and a process started on the new code would then trust them."""
    fingerprint = AssetManifest(STATIC_DIR).fingerprint
    return code_version([PROJECT_ROOT / "app", TEMPLATE_DIR], salt=fingerprint)


def load_site_content(
    content_dir: Path,
    environment: Environment | None = None,
    *,
    render_cache: Path | None = None,
    secret_key: str = "",
    check_exercises: bool = False,
) -> ContentStore:
    """Load content/ with live figures and the embedded widget rendered by the web templates.

    With `render_cache`, what was rendered from unchanged input by the same code is read back
    (from a file signed with `secret_key`). `check_exercises` also runs each exercise's
    solutions against its tests (`prefill content check`).
    """
    from app.content.plan_figures import render_live_figure
    from app.pages.widgets import make_widget_renderer

    assets = AssetManifest(STATIC_DIR)
    if environment is None:
        environment = make_environment({"static_url": assets.url, "level_labels": LEVEL_LABELS})
    store_cache = None
    if render_cache is not None:
        store_cache = RenderCache(render_cache, render_code_version(), key=secret_key)
    return load_content(
        content_dir,
        figures=render_live_figure,
        widgets=make_widget_renderer(environment),
        cache=store_cache,
        diagram_classes=stylesheet_classes((STATIC_DIR / "css" / "app.css").read_text()),
        check_exercises=check_exercises,
    )
