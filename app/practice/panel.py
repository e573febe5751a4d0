"""The practice panel on a question page: what a member has written, revealed and scored.

Also the one rule for the rubric's items and bands (DESIGN.md, question page item 7), which the
page and the API both ask, so they never disagree: a member sees them once a reveal is recorded
(the reveal POST, or signing in "to read the answer"), and not while a new attempt is being
written. A GET records nothing, so `?open=answer` may unfold the answer for reading but opens no
rubric.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy.orm import Session

from app.content.models import Question
from app.db.models.accounts import User
from app.db.models.practice import PRACTICE, Attempt, Note, ReviewCard, is_follow_up
from app.practice import follow_ups, saved
from app.practice.progress import MemberRows, member_rows


def rubric_open(draft: Attempt | None, answer_recorded: bool) -> bool:
    """`answer_recorded`: a reveal of this question's answer is on record for the member."""
    return answer_recorded and (draft is None or draft.revealed_at is not None)


@dataclass
class PracticePanel:
    slugs: tuple[str, ...]
    draft: Attempt | None
    history: list[Attempt]  # scored attempts, newest first
    card: ReviewCard | None
    bookmarked: bool
    note: Note | None
    answer_opened_before: bool  # recorded, or unfolded by this very page (?open=answer)
    answer_recorded: bool
    follow_ups: list[follow_ups.FollowUpState] = field(default_factory=list)

    @property
    def answer_shown(self) -> bool:
        """An attempt in progress keeps the answer folded until it is revealed; otherwise a
        member who has opened the answer before sees it."""
        if self.draft is not None:
            return self.draft.revealed_at is not None
        return self.answer_opened_before

    @property
    def rubric_shown(self) -> bool:
        return rubric_open(self.draft, self.answer_recorded)

    @property
    def can_score(self) -> bool:
        return self.draft is not None and bool(self.draft.body.strip()) and self.answer_shown

    @property
    def best_band(self) -> int | None:
        return max((a.band for a in self.history if a.band is not None), default=None)


def build_panel(
    db: Session,
    user: User,
    question: Question,
    slugs: tuple[str, ...],
    *,
    opened_before: bool,
    recorded: bool,
    rows: MemberRows | None = None,
) -> PracticePanel:
    """From the member's rows (loaded once per page, shared with "Up next") plus their note.
    `opened_before`: the page shows the answer unless an attempt folds it; `recorded`: a reveal
    is on record (what opens the rubric)."""
    rows = rows or member_rows(db, user)
    everything = [a for a in reversed(rows.attempts) if a.question_slug in slugs]  # newest first
    # The page's own attempt; a mock's or a follow-up's has a context of its own.
    own = [a for a in everything if a.context == PRACTICE]
    draft = own[0] if own and own[0].scored_at is None else None
    return PracticePanel(
        slugs=slugs,
        draft=draft,
        # Scored answers to the question itself, on this page or in a mock.
        history=[a for a in everything if a.scored_at is not None and not is_follow_up(a.context)],
        card=next((c for c in rows.cards if c.question_slug in slugs), None),
        bookmarked=any(b.question_slug in slugs for b in rows.bookmarks),
        note=saved.note(db, user, slugs),
        answer_opened_before=opened_before,
        answer_recorded=recorded,
        follow_ups=follow_ups.states(question, everything),
    )
