"""Search as the site offers it: filters, access, paging, and hits resolved to pages.

Plain functions over a Session; no FastAPI. The access rule is `can_read_answer`, applied before
the engine runs: the questions this viewer may not read are passed in as locked pages.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from markupsafe import Markup, escape
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.accounts.access import can_read_answer
from app.accounts.sessions import Viewer
from app.content.models import Concept, Question, Track
from app.content.store import ContentStore
from app.db.models.discussion import Post
from app.search.highlight import plain, to_html
from app.search.index import Hit, IndexQuery, SearchIndex
from app.search.indexer import compound_spellings
from app.search.models import KINDS, SearchDocument, page_key
from app.search.postgres_fts import PostgresIndex
from app.search.query import SearchQuery, with_spellings
from app.search.sqlite_fts import SqliteIndex

PAGE_SIZE = 20


def index_for(db: Session) -> SearchIndex:
    """The engine of the database this session talks to (the interface in index.py knows
    neither: each implements it, and this caller picks one)."""
    if db.get_bind().dialect.name == "postgresql":
        return PostgresIndex()
    return SqliteIndex()


MAX_PAGES = 25  # a sensible cap: nobody reads result 501
KIND_LABELS = {"question": "Question", "concept": "Concept card", "post": "Discussion"}
KIND_FILTERS = {"question": "Questions", "concept": "Concept cards", "post": "Discussions"}


@dataclass(frozen=True)
class Filters:
    kind: str | None = None
    track: str | None = None
    level: str | None = None

    @property
    def active(self) -> bool:
        return any((self.kind, self.track, self.level))


@dataclass
class Result:
    kind: str
    label: str
    url: str
    title: Markup  # highlighted, HTML-safe
    snippet: Markup  # highlighted, HTML-safe
    page: Question | Concept  # the page the hit opens (a post's thread page)
    locked: bool = False  # a question whose answer this viewer cannot read

    @property
    def track(self) -> Track:
        return self.page.track

    @property
    def level(self) -> str:
        return self.page.meta.level


@dataclass
class SearchResults:
    query: SearchQuery
    filters: Filters
    results: list[Result] = field(default_factory=list)
    total: int = 0
    page: int = 1

    @property
    def page_count(self) -> int:
        return min(MAX_PAGES, -(-self.total // PAGE_SIZE))


def locked_pages(store: ContentStore, viewer: Viewer) -> tuple[str, ...]:
    return tuple(
        page_key("question", q.slug) for q in store.questions if not can_read_answer(viewer, q)
    )


def filter_pages(store: ContentStore, filters: Filters) -> tuple[str, ...] | None:
    """The pages (old slugs included, for posts) a track or level filter keeps; None: all."""
    if filters.track is None and filters.level is None:
        return None
    keep: list[str] = []
    groups: list[tuple[str, list[Question] | list[Concept], dict[str, str]]] = [
        ("question", store.questions, store.question_aliases),
        ("concept", store.concepts, store.concept_aliases),
    ]
    for kind, pages, aliases in groups:
        for item in pages:
            if filters.track not in (None, item.track.slug):
                continue
            if filters.level not in (None, item.meta.level):
                continue
            keep.append(page_key(kind, item.slug))
            keep += [page_key(kind, old) for old, new in aliases.items() if new == item.slug]
    return tuple(keep)


def search(
    db: Session,
    store: ContentStore,
    viewer: Viewer,
    query: SearchQuery,
    filters: Filters,
    page: int = 1,
) -> SearchResults:
    page = max(1, min(page, MAX_PAGES))
    results = SearchResults(query=query, filters=filters, page=page)
    if query.is_empty:
        return results
    request = IndexQuery(
        query=with_spellings(query, compound_spellings(store)),
        locked_pages=locked_pages(store, viewer),
        kinds=(filters.kind,) if filters.kind else KINDS,
        pages=filter_pages(store, filters),
        limit=PAGE_SIZE,
        offset=(page - 1) * PAGE_SIZE,
    )
    found = index_for(db).search(db, request)
    shown = _visible_posts(db, [hit.post_id for hit in found.hits if hit.post_id is not None])
    results.total = found.total
    results.results = [
        result
        for hit in found.hits
        if (hit.post_id is None or hit.post_id in shown)
        and (result := _resolve(store, hit)) is not None
    ]
    return results


def _visible_posts(db: Session, ids: list[int]) -> set[int]:
    """Belt and braces: a post hidden or deleted outside the app's events is still never shown."""
    if not ids:
        return set()
    visible = select(Post.id).where(
        Post.id.in_(ids), Post.deleted_at.is_(None), Post.hidden_at.is_(None)
    )
    return set(db.scalars(visible))


def popular_tracks(db: Session, store: ContentStore) -> list[tuple[Track, int]]:
    """Tracks with the most discussion first (then in curriculum order), with that count."""
    rows = db.execute(
        select(SearchDocument.page, func.count())
        .where(SearchDocument.kind == "post")
        .group_by(SearchDocument.page)
    ).all()
    posts: dict[str, int] = {}
    for page, count in rows:
        target = _page(store, page)
        if target is not None:
            posts[target.track.slug] = posts.get(target.track.slug, 0) + count
    ranked = sorted(store.tracks, key=lambda t: (-posts.get(t.slug, 0), t.position))
    return [(track, posts.get(track.slug, 0)) for track in ranked]


def _page(store: ContentStore, page: str) -> Question | Concept | None:
    kind, _, slug = page.partition(":")
    if kind == "question":
        return store.question_by_slug.get(store.question_aliases.get(slug, slug))
    if kind == "concept":
        return store.concept_by_slug.get(store.concept_aliases.get(slug, slug))
    return None


def _resolve(store: ContentStore, hit: Hit) -> Result | None:
    """A hit as a result on the page it opens; None if that page no longer exists."""
    target = _page(store, hit.page)
    if target is None:
        return None
    if hit.kind == "post":
        url = f"{target.url}#post-{hit.post_id}"
        title = Markup("Discussion on “{}”").format(target.title)
    else:
        url = target.url
        title = to_html(hit.title) if hit.title else escape(target.title)
    fallback = target.lede_text if isinstance(target, Question) else target.summary_text
    snippet = to_html(hit.snippet) if hit.snippet else escape(plain(fallback))
    return Result(
        kind=hit.kind,
        label=KIND_LABELS[hit.kind],
        url=url,
        title=title,
        snippet=snippet,
        page=target,
        locked=hit.kind == "question" and hit.locked,
    )
