""" "Ten in a row": a session of ten drills of one skill (or mixed), optionally timed, with a
score at the end and the mistakes made, each with a link to retry it.

A session is its skill, a base seed and whether it is timed: the ten drills follow from those
(`drills_of`), so a visitor's session rides in a signed field and a member's row stores only
the answers. Each member's answer is also a drill answer like any other (accuracy per skill,
reviews); the session keeps all ten with the seconds each took. Timed: 90 seconds a drill; an
answer later than that is graded but not counted in the score.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from random import Random
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.db.models.accounts import User
from app.db.models.drills import DrillSession
from app.drills import MAX_SEED, MIXED, SKILLS, Verdict, generate, grade, mixed_pick
from app.drills.model import Drill
from app.practice import drill_progress

LENGTH = 10
SECONDS_PER_DRILL = 90
RECENT = 5


class SessionError(Exception):
    def __init__(self, message: str, status: int = 422) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def drills_of(skill: str, seed: int) -> list[tuple[str, int]]:
    """The session's ten (skill, seed) pairs."""
    pairs = []
    for n in range(LENGTH):
        if skill == MIXED:
            pairs.append(mixed_pick((seed + n) % (MAX_SEED + 1)))
        else:
            pairs.append((skill, Random(f"session:{skill}:{seed}:{n}").randrange(MAX_SEED + 1)))
    return pairs


def check_skill(skill: str) -> str:
    if skill != MIXED and skill not in SKILLS:
        raise SessionError("Choose a skill, or mixed.")
    return skill


@dataclass(frozen=True)
class Result:
    skill: str
    seed: int
    answer: str
    verdict: str
    mistake: str | None
    seconds: int
    in_time: bool

    @property
    def counts(self) -> bool:
        return self.verdict == "correct" and self.in_time

    @property
    def retry_url(self) -> str:
        return f"/drills/{self.skill}?seed={self.seed}"

    @property
    def mistake_name(self) -> str | None:
        if self.mistake is None:
            return None
        drill = generate(self.skill, self.seed)
        return next((m.name for m in drill.mistakes if m.id == self.mistake), self.mistake)


def grade_answer(
    pairs: list[tuple[str, int]],
    answers: list[dict[str, Any]],
    text: str,
    seconds: int,
    timed: bool,
) -> tuple[dict[str, Any], Verdict]:
    """Grade the next drill's answer (AnswerError when unreadable, for the page to say)."""
    if len(answers) >= len(pairs):
        raise SessionError("This session is finished.", status=409)
    skill, seed = pairs[len(answers)]
    verdict = grade(generate(skill, seed), text)
    entry = {
        "answer": text.strip()[: drill_progress.ANSWER_MAX],
        "verdict": verdict.verdict,
        "mistake": verdict.mistake.id if verdict.mistake else None,
        "seconds": seconds,
        "in_time": not timed or seconds <= SECONDS_PER_DRILL,
    }
    return entry, verdict


def results(pairs: list[tuple[str, int]], answers: list[dict[str, Any]]) -> list[Result]:
    return [
        Result(skill, seed, a["answer"], a["verdict"], a.get("mistake"), a["seconds"], a["in_time"])
        for (skill, seed), a in zip(pairs, answers, strict=False)
    ]


def next_drill(pairs: list[tuple[str, int]], answers: list[dict[str, Any]]) -> Drill | None:
    if len(answers) >= len(pairs):
        return None
    skill, seed = pairs[len(answers)]
    return generate(skill, seed)


# --- a member's sessions --------------------------------------------------------------------


def start(
    db: Session, user: User, skill: str, timed: bool, seed: int, now: datetime
) -> DrillSession:
    check_skill(skill)
    session = DrillSession(
        user_id=user.id, skill=skill, timed=timed, drills=[list(p) for p in drills_of(skill, seed)],
        answers=[], started_at=now,
    )  # fmt: skip
    db.add(session)
    db.flush()
    return session


def owned(db: Session, user: User, session_id: int, *, lock: bool = False) -> DrillSession:
    statement = select(DrillSession).where(
        DrillSession.id == session_id, DrillSession.user_id == user.id
    )
    if lock:
        statement = statement.with_for_update()
    session = db.scalar(statement)
    if session is None:
        raise SessionError("There is no drill session of yours at this address.", status=404)
    return session


def pairs_of(session: DrillSession) -> list[tuple[str, int]]:
    return [(str(s), int(n)) for s, n in session.drills]


def seconds_on_drill(session: DrillSession, now: datetime) -> int:
    """Seconds since the drill now on screen was shown (the last answer, or the start)."""
    answers = session.answers
    last = datetime.fromisoformat(answers[-1]["at"]) if answers else session.started_at
    return max(0, int((now - last).total_seconds()))


def answer(db: Session, user: User, session: DrillSession, text: str, now: datetime) -> Verdict:
    answers = list(session.answers)
    seconds = seconds_on_drill(session, now)
    entry, verdict = grade_answer(pairs_of(session), answers, text, seconds, session.timed)
    entry["at"] = now.isoformat()
    skill, seed = pairs_of(session)[len(answers)]
    drill_progress.record_answer(
        db, user, skill, seed, entry["answer"], verdict.verdict, entry["mistake"], now
    )
    answers.append(entry)
    session.answers = answers  # a new list: the JSON column sees the change
    if len(answers) >= LENGTH:
        session.finished_at = now
    db.flush()
    return verdict


def recent(db: Session, user: User) -> list[DrillSession]:
    return list(
        db.scalars(
            select(DrillSession)
            .where(DrillSession.user_id == user.id, DrillSession.finished_at.is_not(None))
            .order_by(DrillSession.id.desc())
            .limit(RECENT)
        )
    )


def score(session_answers: list[dict[str, Any]]) -> int:
    return sum(1 for a in session_answers if a["verdict"] == "correct" and a.get("in_time", True))
