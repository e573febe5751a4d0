"""Who may read what. One rule, used by pages, fragments, the API, search and feeds."""

from __future__ import annotations

from app.accounts.sessions import Viewer
from app.content.models import Exercise, Question


def can_read_answer(viewer: Viewer, question: Question) -> bool:
    """Free answers are public; account-only answers need any signed-in account."""
    return question.is_free or viewer.signed_in


def can_read_solution(viewer: Viewer, exercise: Exercise) -> bool:
    """An exercise's reference solution and walkthrough follow the same rule as an answer."""
    return exercise.is_free or viewer.signed_in
