"""Practice on a question page: autosaved attempts, reveal, self-score, bookmark and notes."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlsplit

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.accounts.deps import CurrentUser, CurrentViewer, safe_next
from app.content.models import Question
from app.content.store import ContentStore
from app.dates import human_date
from app.db.session import DbSession
from app.discussion import answers
from app.numbers import OutOfRange, parse_int
from app.practice import carry, hints, saved, service
from app.practice.service import PracticeError
from app.practice.view import HintsBox
from app.web.cookies import ANSWER_FIRST, cookie_policy
from app.web.deps import Content, Templates
from app.web.errors import error_response
from app.web.templating import is_htmx

router = APIRouter(include_in_schema=False)
Text = Annotated[str, Form()]


def resolve(content: ContentStore, slug: str) -> tuple[Question, tuple[str, ...]]:
    slug = content.question_aliases.get(slug, slug)
    question = content.question_by_slug.get(slug)
    if question is None:
        raise HTTPException(404, detail="There is no question at this address.")
    return question, content.slugs_of("question", slug)


def back_to(question: Question, anchor: str = "practice") -> RedirectResponse:
    return RedirectResponse(f"{question.url}#{anchor}", 303)


def _failed(request: Request, error: PracticeError) -> Response:
    return error_response(request, error.status, error.message)


@router.post("/questions/{slug}/attempt")
def autosave(
    request: Request,
    slug: str,
    db: DbSession,
    content: Content,
    viewer: CurrentViewer,
    body: Text = "",
) -> Response:
    """Saves as the member types. A signed-out request (an expired session) answers 401 with a
    note; the text stays in the browser (localStorage) until they sign in again."""
    question, slugs = resolve(content, slug)
    if viewer.user is None:
        message = (
            "Not saved: you are signed out. Your text is kept in this browser; sign in to save it."
        )
        if is_htmx(request):
            return HTMLResponse(f'<span class="save-status warn">{message}</span>', status_code=401)
        return RedirectResponse(f"/login?next={question.url}%23practice", 303)
    try:
        attempt = service.save_draft(db, viewer.user, slugs, body)
    except PracticeError as error:
        if is_htmx(request):
            return HTMLResponse(
                f'<span class="save-status warn">{error.message}</span>', status_code=error.status
            )
        return _failed(request, error)
    if is_htmx(request):
        stamp = human_date(attempt.updated_at, with_time=True)
        return HTMLResponse(f'<span class="save-status">Saved · {stamp}</span>')
    return back_to(question)


@router.post("/questions/{slug}/reveal")
def reveal(
    request: Request,
    slug: str,
    db: DbSession,
    content: Content,
    user: CurrentUser,
    body: Annotated[str | None, Form()] = None,
) -> Response:
    """Open the model answer: saves the attempt first, and records the first opening (the
    discussion's spoiler guard reads it)."""
    question, slugs = resolve(content, slug)
    try:
        service.reveal(db, user, slugs, body)
    except PracticeError as error:
        return _failed(request, error)
    answers.record_answer_opened(db, user, question.slug)
    if is_htmx(request):
        # The answer, the scoring panel and the discussion all change: reload the page.
        return Response(status_code=204, headers={"hx-location": f"{question.url}#practice"})
    return back_to(question, "practice")


@router.post("/questions/{slug}/hint")
def hint(
    request: Request,
    slug: str,
    db: DbSession,
    content: Content,
    templates: Templates,
    user: CurrentUser,
    body: Annotated[str | None, Form()] = None,
) -> Response:
    """The next hint for the attempt in progress, recorded with it (the score history shows how
    many were used). The box's text comes along and is saved first, so nothing typed is lost
    when the page reloads without JavaScript."""
    question, slugs = resolve(content, slug)
    available = len(question.practice.hints_html)
    try:
        if body is not None and body.strip():
            service.save_draft(db, user, slugs, body)
        shown = hints.use_hint(db, user, slugs, available)
    except PracticeError as error:
        return _failed(request, error)
    if is_htmx(request):
        box = HintsBox(question, shown, member=True)
        values = {"question": question, "box": box, "oob": True}
        return templates.page(request, "partials/practice_hints.html", values)
    return back_to(question, "hints")


@router.post("/questions/{slug}/read")
def read_answer(
    request: Request,
    slug: str,
    db: DbSession,
    content: Content,
    user: CurrentUser,
    body: Annotated[str | None, Form()] = None,
    keep: Annotated[str, Form()] = "",
) -> Response:
    """ "Just read the answer": records the reveal (the rubric, the spoiler guard and the API
    then agree), with any text written saved first; `keep` makes it the default."""
    question, slugs = resolve(content, slug)
    try:
        service.reveal(db, user, slugs, body)
    except PracticeError as error:
        return _failed(request, error)
    answers.record_answer_opened(db, user, question.slug)
    if keep:
        service.set_answer_first(db, user, True)
    if is_htmx(request):
        return Response(status_code=204, headers={"hx-location": f"{question.url}#answer-heading"})
    return back_to(question, "answer-heading")


@router.post("/questions/{slug}/attempt/new")
def try_again(
    request: Request, slug: str, db: DbSession, content: Content, user: CurrentUser
) -> Response:
    question, slugs = resolve(content, slug)
    try:
        service.start_new(db, user, slugs)
    except PracticeError as error:
        return _failed(request, error)
    if is_htmx(request):
        return Response(status_code=204, headers={"hx-location": f"{question.url}#practice"})
    return back_to(question)


@router.post("/questions/{slug}/score")
async def score(
    request: Request, slug: str, db: DbSession, content: Content, user: CurrentUser
) -> Response:
    question, slugs = resolve(content, slug)
    form = await request.form()
    covered = [str(value) for value in form.getlist("covered")]
    raw_band = str(form.get("band") or "")
    try:
        band = parse_int(raw_band, lo=1, hi=4)
    except OutOfRange:
        band = None  # the service answers with what a band is
    try:
        service.score(
            db,
            user,
            slugs,
            rubric_ids=[item.id for item in question.rubric.items],
            covered=covered,
            band=band,
        )
    except PracticeError as error:
        return _failed(request, error)
    if is_htmx(request):
        return Response(status_code=204, headers={"hx-location": f"{question.url}#practice"})
    return back_to(question)


@router.post("/questions/{slug}/bookmark")
def bookmark(
    request: Request,
    slug: str,
    db: DbSession,
    content: Content,
    templates: Templates,
    user: CurrentUser,
) -> Response:
    question, slugs = resolve(content, slug)
    marked = saved.toggle_bookmark(db, user, slugs)
    if is_htmx(request):
        return templates.page(
            request, "partials/bookmark_button.html", {"question": question, "bookmarked": marked}
        )
    return RedirectResponse(question.url, 303)


@router.post("/questions/{slug}/note")
def note(
    request: Request, slug: str, db: DbSession, content: Content, user: CurrentUser, note: Text = ""
) -> Response:
    question, slugs = resolve(content, slug)
    try:
        kept = saved.save_note(db, user, slugs, note)
    except PracticeError as error:
        if is_htmx(request):
            return HTMLResponse(
                f'<span class="save-status warn">{error.message}</span>', status_code=422
            )
        return _failed(request, error)
    if is_htmx(request):
        return HTMLResponse(
            f'<span class="save-status">{"Note saved" if kept else "Note cleared"}</span>'
        )
    return back_to(question, "notes")


ANSWER_FIRST_MAX_AGE = 60 * 60 * 24 * 365


def _question_path(content: ContentStore, raw: str) -> str:
    """Where to go back to: a question page of this site, else the home page."""
    path = safe_next(raw).split("#", 1)[0].split("?", 1)[0]
    slug = path.removeprefix("/questions/")
    if path.startswith("/questions/") and content.question_aliases.get(slug, slug) in (
        content.question_by_slug
    ):
        return path
    return "/"


@router.post("/practice/answer-first")
def visitor_answer_first(
    request: Request,
    content: Content,
    viewer: CurrentViewer,
    on: Text = "",
    next: Text = "/",
) -> Response:
    """A visitor's "Just read the answer", kept in a cookie that only unfolds answers on this
    browser's question pages (members keep it on their account: /me/answer-first). It changes
    nothing on the server and a visitor's page carries no CSRF token, so it takes none; a post
    from another site is refused by its Origin."""
    origin = request.headers.get("origin")
    if origin and origin != "null" and urlsplit(origin).netloc != request.url.netloc:
        raise HTTPException(403, detail="Cross-site requests are not accepted.")
    path = _question_path(content, next)
    response = RedirectResponse(f"{path}#answer-heading" if on else f"{path}#practice", 303)
    if viewer.user is not None:
        return response
    policy = cookie_policy(request)
    if on:
        policy.set(response, ANSWER_FIRST, "1", ANSWER_FIRST_MAX_AGE)
    else:
        policy.delete(response, ANSWER_FIRST)
    return response


@router.post("/me/answer-first")
def member_answer_first(
    request: Request,
    db: DbSession,
    content: Content,
    user: CurrentUser,
    on: Text = "",
    next: Text = "/",
) -> Response:
    """Keep, or stop keeping, "Just read the answer" as the member's default."""
    service.set_answer_first(db, user, bool(on))
    path = _question_path(content, next)
    return RedirectResponse(f"{path}#answer-heading" if on else f"{path}#practice", 303)


@router.post("/signup/with-attempt")
def signup_with_attempt(
    request: Request,
    content: Content,
    templates: Templates,
    viewer: CurrentViewer,
    next: Text = "/",
    draft: Text = "",
) -> Response:
    """The sign-up form, carrying the attempt a visitor wrote on a question page ("Reveal the
    answer" on an account-only answer, "Sign up to score it" on a free one). It renders a page
    and stores nothing, so it needs no CSRF token (a visitor's question page carries none); the
    sign-up it leads to checks its token as ever, and saves the attempt (app/practice/carry.py)."""
    next_path = safe_next(next)
    if viewer.signed_in:
        return RedirectResponse(next_path, 303)
    if len(draft) > service.ATTEMPT_MAX:
        draft = ""  # over the limit: it stays in the browser, and the page says nothing of it
    values = carry.form_values(content, next_path, draft)
    return templates.page(request, "accounts/signup.html", values)
