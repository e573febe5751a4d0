"""The practice panel on a question page: what a member has written, revealed and scored."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session

from app.content.models import Question
from app.db.models.accounts import User
from app.db.models.practice import Attempt, Note, ReviewCard
from app.practice import service
from app.practice.progress import MemberRows, member_rows


@dataclass
class PracticePanel:
    slugs: tuple[str, ...]
    draft: Attempt | None
    history: list[Attempt]  # scored attempts, newest first
    card: ReviewCard | None
    bookmarked: bool
    note: Note | None
    answer_opened_before: bool

    @property
    def answer_shown(self) -> bool:
        """An attempt in progress keeps the answer folded until it is revealed; otherwise a
        member who has opened the answer before sees it."""
        if self.draft is not None:
            return self.draft.revealed_at is not None
        return self.answer_opened_before

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
    rows: MemberRows | None = None,
) -> PracticePanel:
    """From the member's rows (loaded once per page, shared with "Up next") plus their note."""
    rows = rows or member_rows(db, user)
    everything = [a for a in reversed(rows.attempts) if a.question_slug in slugs]  # newest first
    draft = everything[0] if everything and everything[0].scored_at is None else None
    return PracticePanel(
        slugs=slugs,
        draft=draft,
        history=[a for a in everything if a.scored_at is not None],
        card=next((c for c in rows.cards if c.question_slug in slugs), None),
        bookmarked=any(b.question_slug in slugs for b in rows.bookmarks),
        note=service.note(db, user, slugs),
        answer_opened_before=opened_before,
    )
