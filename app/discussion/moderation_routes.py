"""/moderation: the report queue, actions on posts and accounts, and the log."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import RedirectResponse, Response

from app.accounts.deps import CurrentUser
from app.db.models.accounts import User
from app.db.models.discussion import Post
from app.db.session import DbSession
from app.discussion import moderation
from app.discussion.service import REPORT_REASONS, DiscussionError
from app.discussion.subjects import post_link
from app.web.deps import RowId, Templates
from app.web.errors import error_response

router = APIRouter(include_in_schema=False)
Text = Annotated[str, Form()]
NOTICES = {
    "hidden": "The post is hidden; its reports are closed.",
    "restored": "The post is visible again.",
    "dismissed": "The reports are dismissed.",
    "suspended": "Posting is paused for that account.",
    "unsuspended": "That account can post again.",
}


def _moderator(user: User) -> User:
    if not user.is_moderator:
        raise HTTPException(403, detail="Only moderators can see this page.")
    return user


def _done(notice: str) -> RedirectResponse:
    return RedirectResponse(f"/moderation?notice={notice}", 303)


@router.get("/moderation")
def queue_page(
    request: Request, db: DbSession, templates: Templates, user: CurrentUser, notice: str = ""
) -> Response:
    _moderator(user)
    values = {
        "items": moderation.queue(db, user),
        "reasons": REPORT_REASONS,
        "notice": NOTICES.get(notice),
        "errors": {},
    }
    response = templates.page(request, "discussion/moderation.html", values)
    response.headers["cache-control"] = "private, no-store"
    return response


@router.get("/moderation/log")
def log_page(request: Request, db: DbSession, templates: Templates, user: CurrentUser) -> Response:
    _moderator(user)
    response = templates.page(
        request, "discussion/moderation_log.html", {"entries": moderation.log(db, user)}
    )
    response.headers["cache-control"] = "private, no-store"
    return response


@router.get("/moderation/posts/{post_id}")
def moderate_post(
    request: Request, post_id: RowId, db: DbSession, templates: Templates, user: CurrentUser
) -> Response:
    _moderator(user)
    post = db.get(Post, post_id)
    if post is None or post.deleted_at is not None:
        return error_response(request, 404, "That post does not exist (it may have been deleted).")
    author = db.get(User, post.author_id) if post.author_id else None
    values = {
        "post": post,
        "author": author,
        "back_url": post_link(post.subject_type, post.subject_slug, post.id),
    }
    response = templates.page(request, "discussion/moderate_post.html", values)
    response.headers["cache-control"] = "private, no-store"
    return response


def _act(request: Request, action) -> Response:  # type: ignore[no-untyped-def]
    try:
        notice = action()
    except DiscussionError as error:
        return error_response(request, error.status, error.message)
    return _done(notice)


@router.post("/moderation/posts/{post_id}/hide")
def hide(
    request: Request, post_id: RowId, db: DbSession, user: CurrentUser, note: Text = ""
) -> Response:
    return _act(request, lambda: moderation.hide(db, _moderator(user), post_id, note) and "hidden")


@router.post("/moderation/posts/{post_id}/restore")
def restore(
    request: Request, post_id: RowId, db: DbSession, user: CurrentUser, note: Text = ""
) -> Response:
    return _act(
        request, lambda: moderation.restore(db, _moderator(user), post_id, note) and "restored"
    )


@router.post("/moderation/posts/{post_id}/dismiss")
def dismiss(
    request: Request, post_id: RowId, db: DbSession, user: CurrentUser, note: Text = ""
) -> Response:
    def action() -> str:
        moderation.dismiss(db, _moderator(user), post_id, note)
        return "dismissed"

    return _act(request, action)


@router.post("/moderation/users/{user_id}/suspend")
def suspend(
    request: Request,
    user_id: RowId,
    db: DbSession,
    user: CurrentUser,
    days: Annotated[int, Form(ge=1, le=3650)] = 7,
    note: Text = "",
) -> Response:
    return _act(
        request,
        lambda: moderation.suspend(db, _moderator(user), user_id, days, note) and "suspended",
    )


@router.post("/moderation/users/{user_id}/unsuspend")
def unsuspend(
    request: Request, user_id: RowId, db: DbSession, user: CurrentUser, note: Text = ""
) -> Response:
    return _act(
        request, lambda: moderation.unsuspend(db, _moderator(user), user_id, note) and "unsuspended"
    )
