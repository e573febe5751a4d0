"""Password hashing (argon2id) and the password policy."""

from __future__ import annotations

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from zxcvbn import zxcvbn

MIN_LENGTH = 10
MAX_LENGTH = 512  # beyond this, hashing cost is an attack surface, not security
# zxcvbn scores 0..4; 0 and 1 are guessable within 10^6 guesses (common passwords, dictionary words).
MIN_STRENGTH = 2

_hasher = PasswordHasher()  # argon2id with the library's current recommended parameters
# Verified against when an e-mail has no account, so a failed sign-in takes the same time either way.
_DUMMY_HASH = _hasher.hash("prefill-timing-equaliser")


def use_fast_hashing_for_tests() -> None:
    """Cheap argon2 parameters so a test suite can create hundreds of users (tests only)."""
    global _hasher, _DUMMY_HASH
    _hasher = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
    _DUMMY_HASH = _hasher.hash("prefill-timing-equaliser")


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password_hash: str | None, password: str) -> bool:
    """Constant-time verification; unknown users are checked against a dummy hash."""
    try:
        return _hasher.verify(password_hash or _DUMMY_HASH, password) and password_hash is not None
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def needs_rehash(password_hash: str) -> bool:
    """True when the hash was made with older parameters; re-hash on the next sign-in."""
    try:
        return _hasher.check_needs_rehash(password_hash)
    except InvalidHashError:
        return True


def password_problem(password: str, *, email: str = "", display_name: str = "") -> str | None:
    """A message saying what is wrong with a new password, or None if it is acceptable."""
    if len(password) < MIN_LENGTH:
        return f"Use at least {MIN_LENGTH} characters."
    if len(password) > MAX_LENGTH:
        return f"Use at most {MAX_LENGTH} characters."
    if not password.strip():
        return "A password cannot be only spaces."
    hints = [part for part in (email, email.split("@")[0], display_name) if part]
    result = zxcvbn(password[:100], user_inputs=hints)
    if result["score"] < MIN_STRENGTH:
        warning = result["feedback"].get("warning") or ""
        reason = f" ({warning.rstrip('.')})" if warning else ""
        return (
            f"That password is too easy to guess{reason}. Try a longer phrase of unrelated words."
        )
    return None
