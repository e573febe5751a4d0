"""Every table the app owns; importing this package registers them all on Base.metadata."""

from app.db.base import Base
from app.db.models.accounts import EmailToken, RateLimitHit, User, UserSession

__all__ = ["Base", "EmailToken", "RateLimitHit", "User", "UserSession"]
