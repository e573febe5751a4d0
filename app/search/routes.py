"""GET /search: the full page for a plain form or link, the results fragment for HTMX.

Searching needs no account, so it is limited per client (app/web/throttle.py): far above a
person, live typing included (the box sends a request per 250 ms pause, at most 240 a minute
however fast one types), and a tighter limit of its own for "did you mean", the dearer path a
search that finds nothing takes. Past the first, a 429 (shown as a toast by the page's script);
past the second the search still answers, without a suggestion.
"""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, BackgroundTasks, HTTPException, Query, Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from app.accounts.deps import CurrentViewer
from app.content.schema import LEVEL_LABELS
from app.content.store import ContentStore
from app.db.session import DbSession
from app.numbers import OutOfRange, parse_int
from app.ratelimit import Limit
from app.search import indexer, post_events, service, spelling
from app.search.query import MAX_QUERY_CHARS, parse
from app.search.service import KIND_FILTERS, KIND_LABELS, Filters
from app.web.caching import CachedPage, accepts_gzip
from app.web.deps import Content, Templates
from app.web.templating import is_htmx
from app.web.throttle import check, throttle

router = APIRouter(include_in_schema=False)
EXAMPLES = ("MLA", "prefix caching", "p99 TTFT", "tensor parallel", "KV cache sizing")
SEARCHES_PER_CLIENT = Limit("search", max_hits=300, window_seconds=60)
# Typing a misspelt word live asks for one at each pause; a person rarely misspells 60 a minute.
SUGGESTIONS_PER_CLIENT = Limit("search-suggest", max_hits=60, window_seconds=60)

# Posts are indexed as they are written, wherever in this process they are written.
post_events.install()


def _filters(content: ContentStore, kind: str, track: str, level: str) -> Filters:
    if kind and kind not in KIND_LABELS:
        raise HTTPException(400, detail=f"Type must be one of: {', '.join(KIND_LABELS)}.")
    if track and track not in content.track_by_slug:
        raise HTTPException(400, detail=f"There is no track called “{track}”.")
    if level and level not in LEVEL_LABELS:
        raise HTTPException(400, detail=f"Level must be one of: {', '.join(LEVEL_LABELS)}.")
    return Filters(kind=kind or None, track=track or None, level=level or None)


def canonical_url(q: str, filters: Filters, page: int, verbatim: bool = False) -> str:
    params = {"q": q, "type": filters.kind, "track": filters.track, "level": filters.level}
    if page > 1:
        params["page"] = str(page)
    if verbatim:
        params["verbatim"] = "1"
    encoded = urlencode({name: value for name, value in params.items() if value})
    return "/search" + (f"?{encoded}" if encoded else "")


MAX_PAGE = 10_000


def _page_number(raw: str) -> int:
    """A missing, unreadable or out-of-range page number means the first page."""
    try:
        return parse_int(raw, lo=1, hi=MAX_PAGE) or 1
    except OutOfRange:
        return 1


@router.get("/search")
async def search_page(
    request: Request,
    db: DbSession,
    content: Content,
    templates: Templates,
    viewer: CurrentViewer,
    background: BackgroundTasks,
    q: str = "",
    kind: Annotated[str, Query(alias="type")] = "",
    track: str = "",
    level: str = "",
    page: str = "1",
    verbatim: str = "",
) -> Response:
    filters = _filters(content, kind, track, level)
    if verbatim not in ("", "1"):
        raise HTTPException(400, detail="verbatim must be 1 (search exactly what was typed).")
    # Every search counts, answered from memory or not: before the cache, never cached itself.
    limited = await run_in_threadpool(throttle, request, db, background, SEARCHES_PER_CLIENT)
    if limited is not None:
        return limited

    def render() -> Response:
        return _render(
            request, db, content, templates, viewer, background, q, filters, page, verbatim == "1"
        )

    if viewer.user is not None:  # results may include answers only a member can read
        return await run_in_threadpool(render)
    # A visitor's results depend only on the query and the index: the same query within a
    # moment (the live search as people type, popular terms) is answered from memory.
    key = ("search", content.fingerprint, request.url.query, is_htmx(request))
    cached: CachedPage = await request.app.state.short_lived.get(
        key, lambda: _kept(request, render())
    )
    return cached.response(request)


TOP_HITS = 6


@router.get("/search/top")
async def search_top(
    request: Request,
    db: DbSession,
    content: Content,
    templates: Templates,
    viewer: CurrentViewer,
    background: BackgroundTasks,
    q: str = "",
) -> Response:
    """The header box's live options (static/js/live-search.js): the top hits as HTML options
    of a listbox. Same per-client limit as /search (the script waits for a pause in typing),
    no "did you mean" (the results page has it), cached for visitors like /search."""
    limited = await run_in_threadpool(throttle, request, db, background, SEARCHES_PER_CLIENT)
    if limited is not None:
        return limited

    def render() -> Response:
        query = parse(q)
        indexer.ensure_indexed_once(request.app.state)
        with request.app.state.db.reader() as fresh:
            found = service.search(fresh, content, viewer, query, Filters(), 1)
        values = {
            "q": query.text,
            "hits": found.results[:TOP_HITS],
            "total": found.total,
            "all_url": canonical_url(query.text, Filters(), 1),
        }
        headers = {"cache-control": "private, no-cache", "x-robots-tag": "noindex"}
        return templates.page(request, "partials/search_top.html", values, headers=headers)

    if viewer.user is not None:
        return await run_in_threadpool(render)
    key = ("search-top", content.fingerprint, request.url.query)
    cached: CachedPage = await request.app.state.short_lived.get(
        key, lambda: _kept(request, render())
    )
    return cached.response(request)


def _kept(request: Request, response: Response) -> CachedPage:
    page = CachedPage.of(response)
    if accepts_gzip(request):
        page.gzip_body()  # in the worker thread, once for everyone who asks within the moment
    return page


def _did_you_mean(
    request, background, db, content, viewer, found, filters
) -> tuple[spelling.Suggestion, service.SearchResults] | None:  # type: ignore[no-untyped-def]
    """For a search that found nothing: the corrected query and its first page, if it finds
    something."""
    if found.query.is_empty or found.total or not spelling.eligible(found.query):
        return None
    if check(request, db, background, SUGGESTIONS_PER_CLIENT) is not None:
        return None  # the search itself is answered; only the extra work is refused
    suggestion = spelling.suggest(db, found.query)
    if suggestion is None:
        return None
    retry = service.search(db, content, viewer, parse(suggestion.text), filters, 1)
    return (suggestion, retry) if retry.total else None


def _render(
    request, db, content, templates, viewer, background, q, filters, page, verbatim
) -> Response:  # type: ignore[no-untyped-def]
    """A search that finds nothing but whose correction does shows the corrected results at
    once ("Showing results for kv cache · search instead for kv cahce"); `verbatim` (the
    "search instead" link) searches exactly what was typed and only offers the correction."""
    query = parse(q)
    if indexer.ensure_indexed_once(request.app.state):
        # Fresh documents: an SQLite read transaction begun earlier would not see them.
        with request.app.state.db.reader() as fresh:
            found = service.search(fresh, content, viewer, query, filters, _page_number(page))
            fixed = _did_you_mean(request, background, fresh, content, viewer, found, filters)
    else:
        found = service.search(db, content, viewer, query, filters, _page_number(page))
        fixed = _did_you_mean(request, background, db, content, viewer, found, filters)
    suggestion = fixed[0] if fixed else None
    corrected = fixed is not None and not verbatim and found.page == 1
    if corrected:
        found = fixed[1]  # type: ignore[index]
    shown = parse(suggestion.text) if corrected and suggestion else query
    values = {
        "suggestion": suggestion,
        "suggestion_url": canonical_url(suggestion.text, filters, 1) if suggestion else "",
        "corrected": corrected,
        "verbatim_url": canonical_url(query.text, filters, 1, verbatim=True),
        "q": query.text,
        "results_for": shown.text,
        "found": found,
        "filters": filters,
        "kind_filters": KIND_FILTERS,
        "tracks": content.tracks,
        "popular": service.popular_tracks(db, content) if query.is_empty else [],
        "page_size": service.PAGE_SIZE,
        "levels": LEVEL_LABELS,
        "examples": EXAMPLES,
        "max_query_chars": MAX_QUERY_CHARS,
        "previous_url": canonical_url(shown.text, filters, found.page - 1, verbatim),
        "next_url": canonical_url(shown.text, filters, found.page + 1, verbatim),
        "everything_url": canonical_url(query.text, Filters(), 1, verbatim),
        "canonical_first": canonical_url(query.text, filters, 1, verbatim),
    }
    # Results depend on who is asking (locked answers) and on posts: never from a shared cache.
    headers = {"cache-control": "private, no-cache", "x-robots-tag": "noindex"}
    # The address htmx pushes: only what was asked for (no "&type=&track=").
    headers["hx-push-url"] = canonical_url(query.text, filters, found.page, verbatim)
    return templates.page(
        request, "search.html", values, fragment="partials/search_results.html", headers=headers
    )
