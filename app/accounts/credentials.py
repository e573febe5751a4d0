"""Revoking what an account's credentials vouch for beyond its sessions.

The device cookie and unsubscribe links are signed, not stored, so there is no row to delete:
each mixes in the account's `credential_salt`, and replacing the salt makes every one of them
fail at once. Done whenever the credentials change or the member asks every other browser out
(password change, password reset, "sign out other sessions"). The draft namespace uses the
separate `account_salt`, never replaced: drafts sit in the member's own browser and must
survive a password change.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.db.models.accounts import User, new_salt


def revoke_signed_credentials(db: Session, user: User) -> None:
    user.credential_salt = new_salt()
    db.flush()
