"""E-mail for replies (opt-in) with a one-click unsubscribe link (RFC 8058).

The link is its own authority (mail clients POST it with no cookies), so it is kept narrow: it
works for 90 days, and only while the account keeps the address it was sent to and the
credential salt it was signed with, so a password change or reset, "sign out other sessions",
an address change, or deleting the account (ids are never reused) ends it. An expired link says
so and points at /account. Links from before links expired (an HMAC of the account id alone)
are treated as expired.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import time
from dataclasses import dataclass
from datetime import timedelta
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
LINK_LIFETIME = timedelta(days=90)
CLOCK_SKEW_S = 300  # another process may stamp a link a little ahead of this one's clock
LEGACY_SALT = "prefill.unsubscribe.replies"
_TOKEN = re.compile(r"([0-9]{1,12})\.([0-9]{1,12})\.([0-9a-f]{32})")
MAX_ID = 2**31 - 1  # users.id is a 32-bit integer on PostgreSQL
clock = time.time  # seconds since the epoch; the tests move it


def _mark(secret_key: str, user: User, issued: int) -> str:
    message = f"unsubscribe:{user.id}:{issued}:{user.credential_salt}:{user.email}"
    return hmac.new(secret_key.encode(), message.encode(), hashlib.sha256).hexdigest()[:32]


def unsubscribe_token(secret_key: str, user: User) -> str:
    issued = int(clock())
    return f"{user.id}.{issued}.{_mark(secret_key, user, issued)}"


@dataclass(frozen=True)
class LinkCheck:
    user: User | None = None  # the account the link stops mail for, when it still works
    expired: bool = False


def check_token(db: Session, secret_key: str, token: str) -> LinkCheck:
    match = _TOKEN.fullmatch(token) if len(token) <= 100 else None
    if match is None:
        return LinkCheck(expired=_is_legacy(secret_key, token))
    user_id, issued, mark = int(match[1]), int(match[2]), match[3]
    if user_id > MAX_ID:
        return LinkCheck()
    user = db.get(User, user_id)
    if user is None or not hmac.compare_digest(mark, _mark(secret_key, user, issued)):
        return LinkCheck()
    age = clock() - issued
    if age < -CLOCK_SKEW_S:
        return LinkCheck()
    if age > LINK_LIFETIME.total_seconds():
        return LinkCheck(expired=True)
    return LinkCheck(user=user)


def _is_legacy(secret_key: str, token: str) -> bool:
    if len(token) > 100:
        return False
    try:
        URLSafeSerializer(secret_key, salt=LEGACY_SALT).loads(token)
    except BadSignature:
        return False
    return True


def email_reply_later(request: Request, db: Session, reply: Post) -> None:
    """If the parent's author opted in, queue an e-mail in the reply's own transaction."""
    parent = db.get(Post, reply.parent_id) if reply.parent_id else None
    recipient = db.get(User, parent.author_id) if parent and parent.author_id else None
    replier = db.get(User, reply.author_id) if reply.author_id else None
    if recipient is None or replier is None or recipient.id == replier.id:
        return
    # Only to an address its owner has confirmed: anyone can type an address at sign-up, and a
    # reply (whose name and text another member chooses) must not become mail to a stranger.
    if not recipient.notify_replies_by_email or recipient.email_verified_at is None:
        return
    root = mail_base_url(request)
    link = root + post_link(reply.subject_type, reply.subject_slug, reply.id, newest=True)
    unsubscribe = f"{root}/unsubscribe/{unsubscribe_token(request.app.state.secret_key, recipient)}"
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


def _page(
    request: Request, templates: Templates, token: str, link: LinkCheck, done: bool
) -> Response:
    valid = link.user is not None
    return templates.page(
        request,
        "discussion/unsubscribe.html",
        {"token": token, "valid": valid, "expired": link.expired, "done": done},
        status_code=200 if valid else 410 if link.expired else 404,
    )


@router.get("/unsubscribe/{token}")
def unsubscribe_page(request: Request, token: str, db: DbSession, templates: Templates) -> Response:
    link = check_token(db, request.app.state.secret_key, token)
    return _page(request, templates, token, link, done=False)


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
    link = check_token(db, request.app.state.secret_key, token)
    if link.user is not None:
        link.user.notify_replies_by_email = False
        db.flush()
    return _page(request, templates, token, link, done=link.user is not None)
