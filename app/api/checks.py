"""`POST /api/v1/questions/{slug}/check`: an attempt's numbers checked against the question's key
figures, exactly as the question page checks them after the reveal.

The key figures are facts from the worked answer, so the check follows the answer's access
rule: a free question for anyone, an account-only one for a signed-in caller. It stores and
changes nothing, so, like the sizing API, it takes no CSRF token.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, BackgroundTasks, HTTPException, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from app.accounts.access import can_read_answer
from app.accounts.deps import CurrentViewer
from app.attempt_checks import (
    READS_NUMBERS_ONLY,
    NumberCheck,
    check_question,
    describe,
    show_figure,
    show_number,
)
from app.content.key_figures import KeyFigure
from app.db.session import DbSession
from app.practice.service import ATTEMPT_MAX
from app.web.body_limit import KIB, capped_body_route
from app.web.deps import Content
from app.web.throttle import PRACTICE_PER_CLIENT, throttle

# 20,000 characters of text, each up to six bytes once JSON-escaped (a backslash-u escape),
# and the envelope.
router = APIRouter(prefix="/api/v1", tags=["content"], route_class=capped_body_route(128 * KIB))
Verdict = Literal["correct", "close", "wrong"]


class CheckRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(
        max_length=ATTEMPT_MAX,
        description="The attempt, as written: numbers with units (`320 KiB per token`, `10 GiB`, "
        "`85 sessions`, `25 ms`, `1,200 tokens/s`) are read; everything else is not.",
    )


class KeyFigureOut(BaseModel):
    id: str
    label: str = Field(description="What the figure is, with its model and setup.")
    kind: Literal["bytes", "seconds", "count", "rate"] = Field(
        description="The unit kind: a number in an attempt is matched only to figures of its kind."
    )
    value: float = Field(description="In the kind's base unit: bytes, seconds, a count, tokens/s.")
    shown: str = Field(description="The figure as the page shows it (`320 KiB`).")
    tolerance: float | None = Field(
        description="The relative band counted correct (0.25 = 25%); null: graded exactly."
    )


class MistakeOut(BaseModel):
    id: str = Field(description="The drills' id of the classic mistake (`forgot-k-and-v`).")
    name: str = Field(description="Its name (`forgetting the ×2 for K and V`).")
    explanation: str


class NumberOut(BaseModel):
    text: str = Field(description="The number and its unit as the attempt wrote them.")
    kind: Literal["bytes", "seconds", "count", "rate"]
    value: float = Field(
        description="What it was read as, in the kind's base unit (for a K or M on a count of "
        "tokens, the reading graded: 1,000- or 1,024-based)."
    )
    shown: str
    figure: str | None = Field(
        description="The id of the key figure it was matched to; null if none."
    )
    verdict: Verdict | None = Field(
        description="Graded as the drills grade: `correct`, `close` or `wrong`; null if not graded "
        "(the `message` says why)."
    )
    mistake: MistakeOut | None = Field(description="The classic mistake the number equals, if any.")
    message: str = Field(description="One sentence, with the attempt's own number in it.")


class CheckResponse(BaseModel):
    reads: str = Field(description="What this check does and does not read.")
    figures: list[KeyFigureOut] = Field(description="The question's key figures.")
    numbers: list[NumberOut] = Field(description="Every number-with-unit found, in order.")
    not_stated: list[str] = Field(description="Ids of key figures the attempt never states.")
    note: str | None = Field(
        description="Why there is nothing to check, for a question without key figures."
    )


def key_figure(figure: KeyFigure) -> dict[str, object]:
    return {
        "id": figure.id,
        "label": figure.label,
        "kind": figure.dimension,
        "value": float(figure.value),
        "shown": show_figure(figure),
        "tolerance": float(figure.tolerance) if figure.tolerance else None,
    }


def _number(number: NumberCheck) -> dict[str, object]:
    found = number.found
    mistake = number.mistake
    return {
        "text": found.text,
        "kind": found.dimension,
        "value": float(number.read_as),
        "shown": show_number(number),
        "figure": number.figure.id if number.figure else None,
        "verdict": number.verdict,
        "mistake": None
        if mistake is None
        else {"id": mistake.id, "name": mistake.name, "explanation": mistake.explanation},
        "message": describe(number),
    }


@router.post(
    "/questions/{slug}/check",
    response_model=CheckResponse,
    responses={
        401: {
            "description": "An account-only question: sign in (the figures come from its answer)."
        },
        404: {"description": "No question with that slug."},
        413: {"description": "The body is over 128 KiB."},
        429: {"description": "Over the per-client limit (120 a minute)."},
        422: {"description": "No `text`, or more than 20,000 characters."},
    },
)
def check_attempt(
    slug: str,
    body: CheckRequest,
    request: Request,
    db: DbSession,
    background: BackgroundTasks,
    content: Content,
    viewer: CurrentViewer,
    response: Response,
) -> Any:
    """Check the numbers of an attempt at one question: each number-with-unit is read with the
    drills' unit parser, matched to a key figure of the same kind (a count of the same thing:
    sequences are never tokens) by its correct value or by one of its classic-mistake values (an
    exact mistake match wins over a merely nearer correct value), and graded as the drills
    grade, naming the mistake. A number is graded against a figure only when it is plausibly an
    attempt at it: correct, a classic mistake, close, or the nearest figure within a factor of
    two with no better attempt at it; numbers the question itself gives, contrasts with a figure
    the attempt states correctly and other steps of the worked answer are not graded, and their
    `message` says why. Key figures the attempt never states are listed. It reads numbers only:
    nothing here judges the words."""
    question = content.question_by_slug.get(content.question_aliases.get(slug, slug))
    if question is None:
        raise HTTPException(404, detail=f"No question with slug {slug!r}.")
    if not can_read_answer(viewer, question):
        raise HTTPException(
            401, detail="This question's answer is for signed-in readers, and so are its figures."
        )
    limited = throttle(request, db, background, PRACTICE_PER_CLIENT)
    if limited is not None:
        return limited
    response.headers["cache-control"] = "private, no-store"
    figures = question.practice.checks or []
    report = check_question(question, body.text)
    note = None
    if not figures:
        note = question.practice.checks_note or "This question has no key figures yet."
    return {
        "reads": READS_NUMBERS_ONLY,
        "figures": [key_figure(f) for f in figures],
        "numbers": [_number(n) for n in report.numbers],
        "not_stated": [f.id for f in report.not_stated],
        "note": note,
    }
