"""The question page: the practice box first, then the answer, the concepts behind it, up next,
the Editor's note and the discussion.

Two ways in. `GET /questions/{slug}` is what everyone loads (a visitor's copy is cached and
varies on the "just read the answer" cookie). `POST /questions/{slug}/try` is a visitor's
practice box sent back: "Get a hint" or "Reveal the answer" with the attempt they wrote. It
stores nothing and sets nothing (the attempt stays in their browser until they sign up), so,
like the calculator's pasted config, it needs no CSRF token and a visitor's page carries none.
Members use their own routes (app/practice/routes.py), which record what they do.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, BackgroundTasks, Form, HTTPException, Request
from fastapi.responses import RedirectResponse, Response

from app.accounts.access import can_read_answer
from app.accounts.deps import CurrentViewer
from app.content.models import Question
from app.db.session import DbSession
from app.discussion.answers import has_opened_answer
from app.discussion.service import REPORT_REASONS
from app.discussion.threads import build_thread, resolve_subject
from app.discussion.versions import thread_version
from app.numbers import OutOfRange, parse_int
from app.practice import follow_ups, progress
from app.practice.panel import build_panel
from app.practice.service import ATTEMPT_MAX
from app.practice.view import HintsBox, PracticeView, member_view, visitor_view
from app.web.caching import conditional_async
from app.web.cookies import cookie_policy
from app.web.deps import Content, Templates, base_url
from app.web.templating import is_htmx
from app.web.throttle import PRACTICE_PER_CLIENT, throttle

router = APIRouter(include_in_schema=False)
Text = Annotated[str, Form()]
ANSWER_FIRST_ON = "1"


def structured_data(request: Request, question: Question, *, answer_visible: bool) -> dict:
    """schema.org markup; a locked answer is declared as such (isAccessibleForFree)."""
    data: dict[str, object] = {
        "@context": "https://schema.org",
        "@type": "Article",
        "headline": question.title,
        "description": question.lede_text,
        "dateModified": question.meta.updated.isoformat(),
        "url": base_url(request) + question.url,
        "isAccessibleForFree": question.is_free,
        "publisher": {"@type": "Organization", "name": "Prefill"},
    }
    if not question.is_free:
        data["hasPart"] = {
            "@type": "WebPageElement",
            "isAccessibleForFree": False,
            "cssSelector": ".answer-body" if answer_visible else ".answer-locked",
        }
    return data


def visitor_answer_first(request: Request) -> bool:
    return request.cookies.get(cookie_policy(request).answer_first) == ANSWER_FIRST_ON


def _render(
    request: Request,
    db,  # type: ignore[no-untyped-def]
    content,
    templates: Templates,
    viewer,
    question: Question,
    *,
    sort: str = "top",
    just_opened: bool = False,
    visitor: dict | None = None,
    status_code: int = 200,
) -> Response:
    thread = build_thread(
        db, content, viewer, "question", question.slug, sort=sort, just_opened=just_opened
    )
    panel = None
    up_next = content.up_next(question)
    if viewer.user is not None:
        rows = progress.member_rows(db, viewer.user)
        panel = build_panel(
            db,
            viewer.user,
            question,
            thread.subject.slugs,
            opened_before=thread.answer_opened,
            # ?open=answer unfolds the answer without recording it: ask for the record.
            recorded=(
                has_opened_answer(db, viewer.user, thread.subject.slugs)
                if just_opened
                else thread.answer_opened
            ),
            rows=rows,
        )
        acts = progress.activity(db, viewer.user, content, rows)
        up_next = progress.personal_up_next(content, question, acts) or up_next
        view: PracticeView = member_view(question, panel, answer_first=viewer.user.answer_first)
    else:
        view = visitor_view(question, answer_first=visitor_answer_first(request), **(visitor or {}))
    values = {
        "question": question,
        "view": view,
        "answer_visible": view.answer_visible,
        "answer_readable": view.readable,
        # The rubric's items and bands carry the answer's facts: members only, once a reveal
        # is recorded (app/practice/panel.py `rubric_open`, as the API asks).
        "rubric_visible": panel is not None and panel.rubric_shown,
        "practice": panel,
        "up_next": up_next,
        "concept_index": content.concept_by_slug,
        "thread": thread,
        "composer": {},
        "errors": {},
        "report_reasons": REPORT_REASONS,
        "structured_data": structured_data(request, question, answer_visible=view.answer_visible),
        "follow_up_changes": follow_ups.knob_changes,
    }
    response = templates.page(request, "question.html", values, status_code=status_code)
    if viewer.user is None:
        # A visitor's page depends on the "just read" cookie: a shared cache must not hand one
        # visitor's unfolded copy to another.
        vary = response.headers.get("vary")
        response.headers["vary"] = f"{vary}, Cookie" if vary else "Cookie"
    return response


@router.get("/questions/{slug}")
async def question_page(
    request: Request,
    slug: str,
    db: DbSession,
    content: Content,
    templates: Templates,
    viewer: CurrentViewer,
    sort: str = "top",
    open: str = "",
) -> Response:
    question = content.question_by_slug.get(slug)
    if question is None:
        if slug in content.question_aliases:
            target = f"/questions/{content.question_aliases[slug]}"
            return RedirectResponse(
                target + (f"?{request.url.query}" if request.url.query else ""), 301
            )
        raise HTTPException(404, detail="There is no question at this address.")
    readable = can_read_answer(viewer, question)
    # Arriving from "sign up to read the answer": they asked for it, so this page shows it. A
    # GET records nothing (a link from anywhere could send it): the sign-up or sign-in POST
    # that led here recorded the opening (accounts.routes.sign_in).
    just_opened = readable and open == "answer" and viewer.user is not None
    thread_subject = resolve_subject(content, "question", question.slug)[0]

    def render() -> Response:
        return _render(
            request, db, content, templates, viewer, question, sort=sort, just_opened=just_opened
        )

    version = await thread_version(request, db, thread_subject, member=viewer.user is not None)
    first = viewer.user is None and visitor_answer_first(request)
    return await conditional_async(
        request, [content.fingerprint, version, sort, just_opened, first], render
    )


@router.post("/questions/{slug}/try")
def visitor_try(
    request: Request,
    slug: str,
    db: DbSession,
    content: Content,
    templates: Templates,
    viewer: CurrentViewer,
    background: BackgroundTasks,
    body: Text = "",
    action: Text = "",
    hints: Text = "0",
) -> Response:
    """A visitor's practice box, sent back without JavaScript or with it: the next hint, or
    the answer revealed beside their attempt with its numbers checked. Nothing is stored."""
    question = content.question_by_slug.get(content.question_aliases.get(slug, slug))
    if question is None:
        raise HTTPException(404, detail="There is no question at this address.")
    if viewer.user is not None:  # members' boxes post to their own routes, which record
        return RedirectResponse(f"{question.url}#practice", 303)
    if not question.is_free:
        # Hints and the answer follow the answer's rule: an account first (the box's own
        # buttons lead to sign-up; this is for a form sent some other way).
        return RedirectResponse(f"/signup?next={question.url}%23practice", 303)
    limited = throttle(request, db, background, PRACTICE_PER_CLIENT)
    if limited is not None:
        return limited
    body = body.replace("\r\n", "\n")
    if len(body) > ATTEMPT_MAX:
        raise HTTPException(
            422,
            detail=f"Attempts are limited to {ATTEMPT_MAX:,} characters; this one has "
            f"{len(body):,}.",
        )
    try:
        shown = parse_int(hints or "0", lo=0, hi=10) or 0
    except OutOfRange:
        shown = 0
    if action == "hint":
        if is_htmx(request):  # the hints and the button, swapped in place (the text stays put)
            box = HintsBox(
                question, min(shown + 1, len(question.practice.hints_html)), member=False
            )
            values = {"question": question, "box": box, "oob": True}
            return templates.page(request, "partials/practice_hints.html", values)
        visitor = {"attempt": body, "hints": shown + 1}
    elif action == "reveal":
        visitor = {"attempt": body, "revealed": True}
    else:
        raise HTTPException(422, detail="Choose “Get a hint” or “Reveal the answer”.")
    return _render(request, db, content, templates, viewer, question, visitor=visitor)
