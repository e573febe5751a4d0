"""Every table the app owns; importing this package registers them all on Base.metadata."""

from app.db.base import Base
from app.db.models.accounts import EmailToken, RateLimitHit, User, UserSession
from app.db.models.discussion import (
    AnswerView,
    ModerationAction,
    Notification,
    Post,
    Report,
    Vote,
)

__all__ = [
    "AnswerView",
    "Base",
    "EmailToken",
    "ModerationAction",
    "Notification",
    "Post",
    "RateLimitHit",
    "Report",
    "User",
    "UserSession",
    "Vote",
]
