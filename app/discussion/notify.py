"""E-mail for replies (opt-in) with a one-click unsubscribe link (RFC 8058)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import Response
from itsdangerous import BadSignature, URLSafeSerializer
from sqlalchemy.orm import Session

from app.db.models.accounts import User
from app.db.models.discussion import Post
from app.db.session import DbSession
from app.discussion.subjects import post_link
from app.mail import Mail
from app.outbox import enqueue_mail
from app.web.deps import Templates, mail_base_url

router = APIRouter(include_in_schema=False)
SALT = "prefill.unsubscribe.replies"


def unsubscribe_token(secret_key: str, user_id: int) -> str:
    return URLSafeSerializer(secret_key, salt=SALT).dumps(user_id)


def read_token(secret_key: str, token: str) -> int | None:
    try:
        value = URLSafeSerializer(secret_key, salt=SALT).loads(token)
    except BadSignature:
        return None
    return value if isinstance(value, int) else None


def email_reply_later(request: Request, db: Session, reply: Post) -> None:
    """If the parent's author opted in, queue an e-mail in the reply's own transaction."""
    parent = db.get(Post, reply.parent_id) if reply.parent_id else None
    recipient = db.get(User, parent.author_id) if parent and parent.author_id else None
    replier = db.get(User, reply.author_id) if reply.author_id else None
    if recipient is None or replier is None or recipient.id == replier.id:
        return
    if not recipient.notify_replies_by_email:
        return
    root = mail_base_url(request)
    link = root + post_link(reply.subject_type, reply.subject_slug, reply.id, newest=True)
    unsubscribe = (
        f"{root}/unsubscribe/{unsubscribe_token(request.app.state.secret_key, recipient.id)}"
    )
    excerpt = (
        reply.body_markdown if len(reply.body_markdown) < 600 else reply.body_markdown[:600] + "…"
    )
    mail = Mail(
        to=recipient.email,
        subject=f"{replier.display_name} replied to your post on Prefill",
        text=(
            f"{replier.display_name} replied to your post:\n\n{excerpt}\n\nRead it in the thread: {link}\n\n"
            f"You get these e-mails because you turned them on. Stop them with one click: {unsubscribe}\n"
        ),
        headers=(
            ("List-Unsubscribe", f"<{unsubscribe}>"),
            ("List-Unsubscribe-Post", "List-Unsubscribe=One-Click"),
        ),
    )
    enqueue_mail(db, mail, wake=request.app.state.mail_worker.wake)


@router.get("/unsubscribe/{token}")
def unsubscribe_page(request: Request, token: str, templates: Templates) -> Response:
    valid = read_token(request.app.state.secret_key, token) is not None
    return templates.page(
        request,
        "discussion/unsubscribe.html",
        {"token": token, "valid": valid, "done": False},
        status_code=200 if valid else 404,
    )


@router.post("/unsubscribe/{token}")
def unsubscribe(
    request: Request,
    token: str,
    db: DbSession,
    templates: Templates,
    list_unsubscribe: Annotated[str | None, Form(alias="List-Unsubscribe")] = None,
) -> Response:
    """One click from the e-mail (or the mail client's own button): the signed token is the
    authority here, so this path is exempt from CSRF."""
    user_id = read_token(request.app.state.secret_key, token)
    user = db.get(User, user_id) if user_id is not None else None
    if user is not None:
        user.notify_replies_by_email = False
        db.flush()
    return templates.page(
        request,
        "discussion/unsubscribe.html",
        {"token": token, "valid": user is not None, "done": user is not None},
        status_code=200 if user is not None else 404,
    )
