"""Interviewer follow-ups on a question page: each has its own attempt (context
"followup:<n>"), its own reveal, and a self-check of how it went.

Follow-ups follow the answer's access rule and appear once the answer is open: a member's
attempts are stored like any other (one open attempt per member, question and follow-up); a
visitor's stay in their browser, and the expected answer of a free question sits folded in the
page for them (app/pages/question_page.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import update
from sqlalchemy.orm import Session

from app.content.models import Question
from app.content.practice import FollowUp
from app.db.base import utcnow
from app.db.models.accounts import User
from app.db.models.practice import FOLLOW_UP_BANDS, Attempt, follow_up_context, is_follow_up
from app.practice.service import PracticeError, open_draft

# What a knob's keys mean to a reader ("what changed").
KNOB_LABELS = {
    "model": "Model",
    "gpu": "GPU",
    "gpus": "GPUs",
    "tp": "Tensor parallel",
    "pp": "Pipeline parallel",
    "context": "Context",
    "concurrency": "Concurrent sequences",
    "kv_dtype": "KV cache dtype",
    "weight_dtype": "Weights dtype",
    "gpu_util": "gpu_memory_utilization",
    "reserve": "Reserve per GPU",
    "kv_budget": "KV budget",
    "prompt_tokens": "Prompt tokens",
    "output_tokens": "Output tokens",
    "prefix_hit": "Prefix-cache hit share",
    "scale_out_gbps": "Link between scale-up domains",
    "spec_tokens": "Draft tokens per step",
    "spec_acceptance": "Draft acceptance rate",
    "tpot_slo_ms": "TPOT target",
}
# Units a reader needs to read a knob's value.
KNOB_UNITS = {"scale_out_gbps": "Gb/s", "tpot_slo_ms": "ms"}


@dataclass(frozen=True)
class KnobChange:
    label: str
    before: str | None
    after: str


def knob_changes(question: Question, follow_up: FollowUp) -> list[KnobChange]:
    """The sizing inputs the follow-up turns, against the question's own setup (its widget):
    only those that differ, each from its old value to its new one."""
    widget = question.meta.widget.model_dump() if question.meta.widget else {}
    base = {key: str(value) for key, value in widget.items() if value is not None}
    changes = []
    for key, value in follow_up.knob.items():
        before = base.get(key)
        if before == value:
            continue
        changes.append(
            KnobChange(
                KNOB_LABELS.get(key, key),
                _show(key, before) if before is not None else None,
                _show(key, value),
            )
        )
    return changes


def _show(key: str, value: str) -> str:
    if value.isdigit() and key in {"context", "prompt_tokens", "output_tokens", "concurrency"}:
        return f"{int(value):,} tokens" if key != "concurrency" else f"{int(value):,}"
    unit = KNOB_UNITS.get(key)
    return f"{value} {unit}" if unit else value


@dataclass
class FollowUpState:
    """One follow-up as a member left it: the latest attempt in its context, if any."""

    index: int
    follow_up: FollowUp
    changes: list[KnobChange]
    attempt: Attempt | None

    @property
    def context(self) -> str:
        return follow_up_context(self.index)

    @property
    def revealed(self) -> bool:
        return self.attempt is not None and self.attempt.revealed_at is not None

    @property
    def scored(self) -> bool:
        return self.attempt is not None and self.attempt.scored_at is not None

    @property
    def band_label(self) -> str:
        band = self.attempt.band if self.attempt is not None else None
        return FOLLOW_UP_BANDS.get(band or 0, "")


def states(question: Question, attempts: list[Attempt]) -> list[FollowUpState]:
    """Each follow-up with the member's latest attempt at it (attempts: any order)."""
    latest: dict[str, Attempt] = {}
    for attempt in sorted(attempts, key=lambda a: a.id):
        if is_follow_up(attempt.context):
            latest[attempt.context] = attempt
    return [
        FollowUpState(
            index,
            item,
            knob_changes(question, item),
            latest.get(follow_up_context(index)),
        )
        for index, item in enumerate(question.practice.follow_ups, start=1)
    ]


def score_follow_up(
    db: Session, user: User, slugs: tuple[str, ...], context: str, band: int | None
) -> Attempt:
    """Close a follow-up's attempt with how it went (FOLLOW_UP_BANDS), after its reveal. A
    follow-up has no rubric of its own and no review card: the question's score feeds that."""
    draft = open_draft(db, user, slugs, context)
    if draft is None or draft.revealed_at is None:
        raise PracticeError(
            "Reveal the follow-up's expected answer first, then say how it went.", status=409
        )
    if band not in FOLLOW_UP_BANDS:
        raise PracticeError("Choose how it went: missed it, partly, or got it.", field="band")
    claimed = db.execute(
        update(Attempt)
        .where(Attempt.id == draft.id, Attempt.scored_at.is_(None))
        .values(band=band, scored_at=utcnow())
        .execution_options(synchronize_session="fetch")
    )
    if claimed.rowcount != 1:  # type: ignore[attr-defined]
        raise PracticeError("This follow-up has just been scored (in another tab?).", status=409)
    db.refresh(draft)
    return draft
