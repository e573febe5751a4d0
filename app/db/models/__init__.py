"""Every table the app owns; importing this package registers them all on Base.metadata."""

from app.db.base import Base
from app.db.models.accounts import EmailToken, RateLimitHit, User, UserSession
from app.db.models.cache import CacheChange
from app.db.models.discussion import (
    AnswerView,
    ModerationAction,
    Notification,
    Post,
    Report,
    ThreadStats,
    Vote,
)
from app.db.models.drills import DrillAttempt, DrillReviewCard, DrillSession
from app.db.models.exercises import ExerciseDraft, ExerciseReviewCard, ExerciseSubmission
from app.db.models.mail import OutboxMessage
from app.db.models.mocks import InterviewScorecard, Mock
from app.db.models.plans import CardRead, PlanTask, StudyPlan
from app.db.models.practice import ActiveDay, Attempt, Bookmark, Note, ReviewCard, ReviewLog
from app.db.models.shared_configs import SharedConfig

__all__ = [
    "ActiveDay",
    "AnswerView",
    "Attempt",
    "Base",
    "Bookmark",
    "CacheChange",
    "CardRead",
    "DrillAttempt",
    "DrillReviewCard",
    "DrillSession",
    "EmailToken",
    "ExerciseDraft",
    "ExerciseReviewCard",
    "ExerciseSubmission",
    "InterviewScorecard",
    "Mock",
    "ModerationAction",
    "Note",
    "Notification",
    "OutboxMessage",
    "PlanTask",
    "Post",
    "RateLimitHit",
    "Report",
    "ReviewCard",
    "ReviewLog",
    "SharedConfig",
    "StudyPlan",
    "ThreadStats",
    "User",
    "UserSession",
    "Vote",
]
