"""Interviewer mode: a mock's question set behind a shareable URL (`/mock/set?q=…`), the
interviewer's scoring, and the scorecard sent to the candidate as a link.

The URL names public things only (question slugs, a level, a length). What the page shows
depends on who opens it: anyone sees the prompts (titles and ledes are public); a signed-in
member opening it as the interviewer also sees when to give each follow-up, the follow-ups
with their expected answers, and the rubric and bands to score with. The scorecard's link is
unguessable; it names rubric items by id, and its page shows their text only to members.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.content.models import Question
from app.content.store import ContentStore
from app.db.models.accounts import User
from app.db.models.mocks import InterviewScorecard
from app.db.models.practice import FOLLOW_UP_BANDS
from app.mocks.focus import LENGTHS, LEVELS, WARMUP_MINUTES
from app.mocks.service import MockError

NOTE_MAX = 2_000
NAME_MAX = 60


@dataclass(frozen=True)
class QuestionSet:
    questions: list[Question]
    level: str
    minutes: int

    @property
    def query(self) -> str:
        slugs = ",".join(q.slug for q in self.questions)
        return f"q={slugs}&level={self.level}&minutes={self.minutes}"

    @property
    def per_question(self) -> float:
        return (self.minutes - WARMUP_MINUTES) / len(self.questions)

    def follow_up_times(self, question: Question) -> list[str]:
        """When to give each follow-up, as minutes:seconds into the question (the same share
        of its time as a mock gives them)."""
        total = len(question.practice.follow_ups)
        out = []
        for k in range(1, total + 1):
            at = timedelta(minutes=self.per_question) * k / (total + 1)
            seconds = int(at.total_seconds())
            out.append(f"{seconds // 60}:{seconds % 60:02d}")
        return out


def parse_set(content: ContentStore, q: str, level: str, minutes: str) -> QuestionSet:
    slugs = [s.strip() for s in q.split(",") if s.strip()]
    if not slugs or len(slugs) > max(LENGTHS.values()):
        raise MockError(f"A question set names 1 to {max(LENGTHS.values())} questions.", 400)
    questions = []
    for slug in slugs:
        question = content.question_by_slug.get(content.question_aliases.get(slug, slug))
        if question is None:
            raise MockError("That question set names a question that does not exist.", 404)
        if question not in questions:
            questions.append(question)
    if level not in LEVELS:
        level = "senior"
    try:
        length = int(minutes)
    except ValueError:
        length = 0
    if length not in LENGTHS:
        length = next((m for m, n in LENGTHS.items() if n >= len(questions)), 60)
    return QuestionSet(questions, level, length)


def _int(raw: Any, lo: int, hi: int) -> int | None:
    try:
        value = int(str(raw))
    except ValueError:
        return None
    return value if lo <= value <= hi else None


def save_scorecard(
    db: Session, user: User, qset: QuestionSet, form: dict[str, Any], now: datetime
) -> InterviewScorecard:
    """The interviewer's scores (one band per question required), kept behind a new token."""
    scores = []
    for index, question in enumerate(qset.questions):
        band = _int(form.get(f"band{index}", ""), 1, 4)
        if band is None:
            raise MockError(f"Choose a band for “{question.title}”.")
        rubric = [item.id for item in question.rubric.items]
        covered = [item for item in form.get(f"cov{index}", []) if item in rubric]
        follow_ups = [
            _int(form.get(f"fu{index}_{k}", ""), 1, 3)
            for k in range(1, len(question.practice.follow_ups) + 1)
        ]
        # Line breaks as the browser's maxlength counts them (one each), before the cap.
        note = str(form.get(f"note{index}", "")).replace("\r\n", "\n")[:NOTE_MAX]
        scores.append(
            {
                "band": band,
                "covered": covered,
                "rubric": rubric,
                "minutes": _int(form.get(f"min{index}", ""), 0, 240),
                "follow_ups": follow_ups,
                "note": note.strip(),
            }
        )
    card = InterviewScorecard(
        token=secrets.token_urlsafe(18),
        user_id=user.id,
        level=qset.level,
        minutes=qset.minutes,
        question_slugs=[q.slug for q in qset.questions],
        scores=scores,
        candidate=str(form.get("candidate", ""))[:NAME_MAX].strip(),
        summary=str(form.get("summary", "")).replace("\r\n", "\n")[:NOTE_MAX].strip(),
        created_at=now,
    )
    db.add(card)
    db.flush()
    return card


def find_scorecard(db: Session, token: str) -> InterviewScorecard | None:
    if not token or len(token) > 40:
        return None
    return db.scalar(select(InterviewScorecard).where(InterviewScorecard.token == token))


@dataclass(frozen=True)
class CardRow:
    question: Question | None
    band: int
    met: bool
    covered: int
    rubric: int
    covered_text: list[str]  # filled for members only
    missed_text: list[str]
    minutes: int | None
    follow_ups: list[str]
    note: str


def card_rows(content: ContentStore, card: InterviewScorecard, *, member: bool) -> list[CardRow]:
    target = LEVELS.get(card.level, LEVELS["senior"]).band
    rows = []
    for slug, score in zip(card.question_slugs, card.scores, strict=False):
        question = content.question_by_slug.get(content.question_aliases.get(slug, slug))
        items = {i.id: i.text for i in question.rubric.items} if question else {}
        covered = [items[i] for i in score["covered"] if i in items] if member else []
        missed = (
            [items[i] for i in score["rubric"] if i in items and i not in score["covered"]]
            if member
            else []
        )
        rows.append(
            CardRow(
                question=question,
                band=score["band"],
                met=score["band"] >= target,
                covered=len(score["covered"]),
                rubric=len(score["rubric"]),
                covered_text=covered,
                missed_text=missed,
                minutes=score.get("minutes"),
                follow_ups=[FOLLOW_UP_BANDS.get(b or 0, "not scored") for b in score["follow_ups"]],
                note=score.get("note", ""),
            )
        )
    return rows
