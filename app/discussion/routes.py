"""Thread pages and post actions. Each works as an HTMX swap and as a plain form post."""

from __future__ import annotations

from functools import partial
from typing import Annotated

from fastapi import APIRouter, BackgroundTasks, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.accounts.deps import CurrentUser, CurrentViewer
from app.db.session import DbSession
from app.discussion import limits, notify, service
from app.discussion.render import MAX_LENGTH, render_post
from app.discussion.service import REPORT_REASONS, DiscussionError
from app.discussion.subjects import KINDS, post_link, thread_home
from app.discussion.threads import build_thread
from app.web.deps import MAX_ROW_ID, Content, RowId, Templates
from app.web.errors import error_response, wants_json
from app.web.templating import is_htmx
from app.web.throttle import PREVIEWS_PER_ACCOUNT, throttle

router = APIRouter(include_in_schema=False)
Text = Annotated[str, Form()]


def _kind(section: str) -> str:
    if section not in KINDS:
        raise HTTPException(404)
    return KINDS[section]


def _over_limit(request: Request, db, user, limit) -> tuple[str, dict[str, str]] | None:  # type: ignore[no-untyped-def]
    """The refusal's message and headers when the member is over `limit`, else None."""
    verdict = request.app.state.rate_limiter.hit(db, limit, str(user.id))
    if verdict.allowed:
        return None
    minutes = verdict.retry_after_minutes
    message = (
        f"You are posting faster than we allow ({limit.describe()}). "
        f"Try again in {minutes} minute{'s' if minutes != 1 else ''}."
    )
    return message, {"retry-after": str(verdict.retry_after)}


def _limited(request: Request, db, user, limit) -> Response | None:  # type: ignore[no-untyped-def]
    refused = _over_limit(request, db, user, limit)
    return None if refused is None else error_response(request, 429, *refused)


def _plain_form(request: Request) -> bool:
    """A form posted without JavaScript: a refusal must come back with the text in its box."""
    return not is_htmx(request) and not wants_json(request)


def _thread_response(
    request,
    db,
    content,
    templates,
    viewer,
    section,
    slug,
    *,
    sort="new",
    status_code=200,
    expanded=None,
):  # type: ignore[no-untyped-def]
    """`expanded`: a post whose folded (spoiler) text the reader had open, e.g. the one they just
    replied to: it stays open in the re-rendered thread."""
    thread = build_thread(db, content, viewer, _kind(section), slug, sort=sort)
    values = {
        "thread": thread,
        "composer": {},
        "errors": {},
        "report_reasons": REPORT_REASONS,
        "expanded_post_id": expanded,
    }
    return templates.page(request, "partials/discussion.html", values, status_code=status_code)


@router.get("/{section}/{slug}/comments")
def thread_page(
    request: Request,
    section: str,
    slug: str,
    db: DbSession,
    content: Content,
    templates: Templates,
    viewer: CurrentViewer,
    sort: str = "top",
    after: str | None = None,
) -> Response:
    """HTMX: the next page of posts (for "load more" or a sort switch). Plain: a page of its own."""
    try:
        thread = build_thread(db, content, viewer, _kind(section), slug, sort=sort, cursor=after)
    except DiscussionError as error:
        return error_response(request, error.status, error.message)
    values = {"thread": thread, "report_reasons": REPORT_REASONS, "composer": {}, "errors": {}}
    fragment = "partials/thread_posts.html" if after else "partials/thread_list.html"
    values["sort_oob"] = fragment.endswith("thread_list.html") and is_htmx(request)
    return templates.page(request, "discussion/thread.html", values, fragment=fragment)


@router.post("/{section}/{slug}/comments")
def create(
    request: Request,
    section: str,
    slug: str,
    db: DbSession,
    content: Content,
    templates: Templates,
    viewer: CurrentViewer,
    user: CurrentUser,
    body: Text = "",
    parent_id: Annotated[int | None, Form(ge=1, le=MAX_ROW_ID)] = None,
    action: Text = "post",
) -> Response:
    thread = build_thread(db, content, viewer, _kind(section), slug)
    draft = partial(_composer_page, request, templates, thread, body, parent_id)
    if action == "preview":
        limited = throttle(request, db, None, PREVIEWS_PER_ACCOUNT, f"user:{user.id}")
        if limited is not None:
            return limited
        return draft(preview=render_post(body[:MAX_LENGTH]))
    if (refused := _over_limit(request, db, user, limits.POSTS_PER_ACCOUNT)) is not None:
        message, headers = refused
        if _plain_form(request):
            return draft(error=message, status=429, headers=headers)
        return error_response(request, 429, message, headers)
    try:
        post = service.create_post(db, thread.subject, user, body, parent_id=parent_id)
    except DiscussionError as error:
        if error.status == 422 and _plain_form(request):
            return draft(error=error.message, status=422)
        if not is_htmx(request) or error.status != 422:
            return error_response(request, error.status, error.message)
        values = {
            "thread": thread,
            "composer": {"body": body, "parent_id": parent_id},
            "errors": {"body": error.message},
            "report_reasons": REPORT_REASONS,
        }
        return templates.page(request, "partials/discussion.html", values, status_code=422)
    if parent_id is not None:
        notify.email_reply_later(request, db, post)
    if not is_htmx(request):
        return RedirectResponse(
            post_link(post.subject_type, post.subject_slug, post.id, newest=True), 303
        )
    return _thread_response(
        request, db, content, templates, viewer, section, slug, expanded=parent_id
    )


def _composer_page(  # type: ignore[no-untyped-def]
    request,
    templates,
    thread,
    body,
    parent_id,
    *,
    preview=None,
    error=None,
    status=200,
    headers=None,
) -> Response:
    """The composer on a page of its own, for a form posted without JavaScript: a preview, or a
    refused post with its text kept (a bare error page would lose it)."""
    values = {
        "thread": thread,
        "body": body,
        "parent_id": parent_id,
        "preview": preview,
        "error": error,
    }
    return templates.page(
        request, "discussion/preview.html", values, status_code=status, headers=headers
    )


@router.post("/comments/preview")
def preview(
    request: Request,
    user: CurrentUser,
    db: DbSession,
    background: BackgroundTasks,
    body: Text = "",
) -> Response:
    """The composer's live preview: the same renderer and sanitiser as a real post."""
    limited = throttle(request, db, background, PREVIEWS_PER_ACCOUNT, f"user:{user.id}")
    if limited is not None:
        return limited
    html = (
        render_post(body[:MAX_LENGTH])
        if body.strip()
        else '<p class="muted">Nothing to preview yet.</p>'
    )
    return HTMLResponse(f'<div class="prose post-body">{html}</div>')


@router.get("/posts/{post_id}/edit")
def edit_form(
    request: Request, post_id: RowId, db: DbSession, templates: Templates, user: CurrentUser
) -> Response:
    post = service.readable_post(db, post_id, user) if _exists(db, post_id, user) else None
    if post is None or post.author_id != user.id:
        return error_response(request, 403 if post else 404, "You can only edit your own posts.")
    return templates.page(
        request,
        "discussion/edit.html",
        {"post": post, "draft": post.body_markdown, "errors": {}},
        fragment="partials/post_edit_form.html",
    )


def _exists(db, post_id: RowId, user) -> bool:  # type: ignore[no-untyped-def]
    try:
        service.readable_post(db, post_id, user)
    except DiscussionError:
        return False
    return True


@router.post("/posts/{post_id}/edit")
def edit(
    request: Request,
    post_id: RowId,
    db: DbSession,
    content: Content,
    templates: Templates,
    viewer: CurrentViewer,
    user: CurrentUser,
    body: Text = "",
    action: Text = "save",
) -> Response:
    if action == "preview":  # without JavaScript: the form again, with the preview, nothing saved
        post = service.readable_post(db, post_id, user) if _exists(db, post_id, user) else None
        if post is None or post.author_id != user.id:
            return error_response(
                request, 403 if post else 404, "You can only edit your own posts."
            )
        values = {
            "post": post,
            "draft": body,
            "errors": {},
            "preview": render_post(body[:MAX_LENGTH]),
        }
        return templates.page(request, "discussion/edit.html", values)
    if (refused := _over_limit(request, db, user, limits.POSTS_PER_ACCOUNT)) is not None:
        message, headers = refused
        post = service.readable_post(db, post_id, user) if _exists(db, post_id, user) else None
        if _plain_form(request) and post is not None and post.author_id == user.id:
            values = {"post": post, "draft": body, "errors": {"body": message}}
            return templates.page(
                request, "discussion/edit.html", values, status_code=429, headers=headers
            )
        return error_response(request, 429, message, headers)
    try:
        post = service.edit_post(db, post_id, user, body)
    except DiscussionError as error:
        if error.status == 422:
            values = {
                "post": service.readable_post(db, post_id, user),
                "draft": body,
                "errors": {"body": error.message},
            }
            return templates.page(
                request,
                "discussion/edit.html",
                values,
                fragment="partials/post_edit_form.html",
                status_code=422,
            )
        return error_response(request, error.status, error.message)
    return _post_response(request, db, content, templates, viewer, post)


def _post_response(request, db, content, templates, viewer, post):  # type: ignore[no-untyped-def]
    if not is_htmx(request):
        link = post_link(post.subject_type, post.subject_slug, post.id, newest=True)
        return RedirectResponse(link, 303)
    thread = build_thread(db, content, viewer, post.subject_type, post.subject_slug)
    item = service.ThreadPost(post=post, author=viewer.user)
    return templates.page(
        request,
        "partials/post.html",
        {
            "item": item,
            "thread": thread,
            "report_reasons": REPORT_REASONS,
            "is_reply": post.parent_id is not None,
        },
    )


@router.post("/posts/{post_id}/delete")
def delete(
    request: Request,
    post_id: RowId,
    db: DbSession,
    content: Content,
    viewer: CurrentViewer,
    user: CurrentUser,
) -> Response:
    try:
        post = service.readable_post(db, post_id, user)
        home = thread_home(post.subject_type, post.subject_slug)
        service.delete_post(db, post_id, user)
    except DiscussionError as error:
        return error_response(request, error.status, error.message)
    if is_htmx(request):
        # The heading's count changes too (out of band), so it never shows a stale number.
        count = build_thread(db, content, viewer, post.subject_type, post.subject_slug).count
        return HTMLResponse(
            '<p class="post-removed muted" role="status">Your post was deleted.</p>'
            f'<h2 id="discussion-heading" hx-swap-oob="true">Discussion · {count}</h2>'
        )
    return RedirectResponse(f"{home}#discussion-heading", 303)


@router.post("/posts/{post_id}/vote")
def vote(
    request: Request, post_id: RowId, db: DbSession, templates: Templates, user: CurrentUser
) -> Response:
    if (limited := _limited(request, db, user, limits.VOTES_PER_ACCOUNT)) is not None:
        return limited
    try:
        post, voted = service.toggle_vote(db, post_id, user)
    except DiscussionError as error:
        return error_response(request, error.status, error.message)
    if not is_htmx(request):
        return RedirectResponse(thread_url(post), 303)
    return templates.page(
        request, "partials/vote_button.html", {"post": post, "voted": voted, "can_vote": True}
    )


def thread_url(post) -> str:  # type: ignore[no-untyped-def]
    return post_link(post.subject_type, post.subject_slug, post.id)


@router.get("/posts/{post_id}/report")
def report_form(
    request: Request, post_id: RowId, db: DbSession, templates: Templates, user: CurrentUser
) -> Response:
    """Loaded into the thread by HTMX, or a page of its own without JavaScript."""
    try:
        post = service.readable_post(db, post_id, user)
    except DiscussionError as error:
        return error_response(request, error.status, error.message)
    values = {"post": post, "report_reasons": REPORT_REASONS, "back_url": thread_url(post)}
    return templates.page(
        request, "discussion/report.html", values, fragment="partials/report_form.html"
    )


@router.post("/posts/{post_id}/report")
def report(
    request: Request,
    post_id: RowId,
    db: DbSession,
    user: CurrentUser,
    reason: Text = "",
    note: Text = "",
) -> Response:
    try:
        post = service.readable_post(db, post_id, user)
        service.report_post(db, post_id, user, reason, note)
    except DiscussionError as error:
        return error_response(request, error.status, error.message)
    if is_htmx(request):
        return HTMLResponse(
            '<p class="muted" role="status">Thank you — a moderator will look at it.</p>'
        )
    return RedirectResponse(thread_url(post), 303)
