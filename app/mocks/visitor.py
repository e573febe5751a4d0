"""A visitor's mock: free questions only, and nothing in the database. The run (questions,
deadline, warm-up, where it is) rides in a signed cookie (app/web/signed.py), and what they
write rides in the form posts: every page carries the other questions' texts in hidden fields
(with JavaScript, the browser keeps a copy too). Signing up from the debrief carries the mock
into the new account (carry.py)."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from random import Random

from fastapi import Request
from fastapi.responses import RedirectResponse, Response

from app.content.store import ContentStore
from app.drills import MAX_SEED
from app.mocks import store
from app.mocks.draw import draw_questions
from app.mocks.focus import LENGTHS, check_choice
from app.mocks.run import MockRun
from app.web import signed
from app.web.cookies import cookie_policy
from app.web.errors import error_response

PRIVATE = {"cache-control": "private, no-store"}


def current(request: Request, content: ContentStore) -> tuple[str, MockRun] | None:
    token = request.cookies.get(cookie_policy(request).name(store.VISITOR_COOKIE))
    data = signed.read(request, store.VISITOR_PURPOSE, token, store.VISITOR_MAX_AGE)
    return store.visitor_run(data, content) if data is not None else None


def keep(request: Request, response: Response, run_id: str, run: MockRun) -> Response:
    token = signed.sign(request, store.VISITOR_PURPOSE, store.visitor_payload(run_id, run))
    cookie_policy(request).set(response, store.VISITOR_COOKIE, token, store.VISITOR_MAX_AGE)
    return response


def forget(request: Request, response: Response) -> Response:
    cookie_policy(request).delete(response, store.VISITOR_COOKIE)
    return response


def start(
    request: Request,
    content: ContentStore,
    focus: str,
    level: str,
    minutes: int,
    slugs: list[str] | None,
    now: datetime,
    rng: Random,
) -> Response:
    try:
        chosen_focus, chosen_level = check_choice(focus or "mixed", level, minutes)
    except ValueError as error:
        return error_response(request, 422, str(error), headers=PRIVATE)
    note = ""
    if slugs is not None:
        if not all(content.question_by_slug[s].is_free for s in slugs):
            # Account-only questions need an account, in a mock as on their pages.
            return RedirectResponse("/signup?next=/mock", 303)
    else:
        questions, note = draw_questions(
            content,
            chosen_focus,
            chosen_level,
            LENGTHS[minutes],
            recent=set(),
            free_only=True,
            rng=rng,
        )
        slugs = [q.slug for q in questions]
    if not slugs:
        return error_response(request, 422, "There are no free questions in this focus yet.")
    run = MockRun(
        focus=chosen_focus.id,
        level=chosen_level.id,
        minutes=minutes,
        slugs=slugs,
        follow_up_counts=store.follow_up_counts(content, slugs),
        warmup_skill=rng.choice(chosen_focus.skills),
        warmup_seed=rng.randrange(MAX_SEED + 1),
        started_at=now,
        deadline=now + timedelta(minutes=minutes),
        note=note,
    )
    response = RedirectResponse("/mock/visitor", 303)
    return keep(request, response, secrets.token_hex(6), run)
