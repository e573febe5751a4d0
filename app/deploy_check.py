"""`prefill check --deploy`: refuse unsafe production settings, one clear message each."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from itertools import pairwise

from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from app.settings import DEFAULT_SECRET_FILE, Settings
from app.web.client_address import parse_networks
from app.web.public_url import public_url_problem

MIN_SECRET_LENGTH = 32
# By this estimate `secrets.token_urlsafe(48)` holds ~380 bits and 32 random hex digits never
# fewer than ~90 (50,000 draws); one character repeated holds none.
MIN_SECRET_BITS = 80
MIN_DISTINCT_CHARACTERS = 8


def estimated_bits(secret: str) -> float:
    """Shannon entropy of the characters times the length: a ceiling on what the key holds,
    low for repeats and small alphabets (a placeholder, a word typed twice)."""
    counts = Counter(secret)
    per_char = -sum(n / len(secret) * math.log2(n / len(secret)) for n in counts.values())
    return per_char * len(secret)


def secret_problem(secret: str) -> str | None:
    if any(ch.isspace() for ch in secret):
        return "contains whitespace (a stray newline or space from copying?)"
    if len(secret) < MIN_SECRET_LENGTH:
        return f"is too short: use at least {MIN_SECRET_LENGTH} random characters"
    if secret.lower() in {"changethis", "secret", "test-secret", "development"}:
        return "is a well-known placeholder"
    distinct = len(set(secret))
    if distinct < MIN_DISTINCT_CHARACTERS or estimated_bits(secret) < MIN_SECRET_BITS:
        return f"looks low in entropy ({distinct} distinct characters, repeats)"
    if len({secret[i : i + 4] for i in range(len(secret) - 3)}) < (len(secret) - 3) * 0.8:
        return "looks low in entropy (a word or run of characters repeated)"
    steps = Counter(ord(b) - ord(a) for a, b in pairwise(secret))
    if max(steps[0], steps[1], steps[-1]) > len(secret) // 3:
        return "looks low in entropy (runs such as abcd or 1234)"
    return None


@dataclass(frozen=True)
class Finding:
    level: str  # "error" fails the check; "warning" is printed
    message: str

    def __str__(self) -> str:
        return f"{self.level.upper()}: {self.message}"


def check_settings(settings: Settings, *, workers: int) -> list[Finding]:
    findings: list[Finding] = []

    def error(message: str) -> None:
        findings.append(Finding("error", message))

    def warning(message: str) -> None:
        findings.append(Finding("warning", message))

    if settings.env != "production":
        error(
            f"PREFILL_ENV is {settings.env!r}: development mode reloads content and generates a "
            "secret key on disk. Set PREFILL_ENV=production."
        )
    secret = settings.secret_key
    if not secret:
        error(
            "PREFILL_SECRET_KEY is not set: sessions and CSRF tokens would be signed with a key "
            f"generated into {DEFAULT_SECRET_FILE}, different on every host."
        )
    elif problem := secret_problem(secret):
        error(
            f"PREFILL_SECRET_KEY {problem}. Generate one: "
            'python -c "import secrets; print(secrets.token_urlsafe(48))"'
        )
    if problem := public_url_problem(settings.public_url):
        error(
            f"PREFILL_PUBLIC_URL: {problem}. It must be the site's https origin "
            "(e.g. https://prefill.example); production refuses to start without it."
        )
    if settings.is_sqlite and workers > 1:
        error(
            f"DATABASE_URL is SQLite but {workers} workers were asked for: several processes on "
            "one SQLite file serialise every write. Use PostgreSQL, or one worker."
        )
    elif settings.is_sqlite:
        warning(
            "DATABASE_URL is SQLite: fine for one process on one box; use PostgreSQL to scale out."
        )
    if settings.reload_content:
        error("PREFILL_RELOAD_CONTENT is on: production should load content once at start-up.")
    if not settings.rate_limits:
        error(
            "PREFILL_RATE_LIMITS is off: anyone could queue unlimited sizing and preview work. "
            "It is for load tests only."
        )
    if settings.mailer == "outbox":
        warning(
            "PREFILL_MAILER is 'outbox': password-reset and verification mail is written to "
            f"{settings.outbox_dir}, not sent. Configure SMTP."
        )
    if settings.mailer == "memory":
        error("PREFILL_MAILER is 'memory' (a test mailer): mail would be silently dropped.")
    if settings.forwarded_allow_ips.strip() == "*":
        error(
            "PREFILL_FORWARDED_ALLOW_IPS is '*': any client could claim any address (rate "
            "limits key on it). List your proxies' addresses or networks instead."
        )
    else:
        try:
            parse_networks(settings.forwarded_allow_ips)
        except ValueError:
            error(
                f"PREFILL_FORWARDED_ALLOW_IPS is {settings.forwarded_allow_ips!r}: list proxy "
                "addresses or CIDR networks, comma-separated."
            )
    if settings.mail_worker == "off":
        warning(
            "PREFILL_MAIL_WORKER is 'off': run `prefill worker` beside the app, or queued mail "
            "(password resets, confirmations) is never sent."
        )
    return findings


def check_database(settings: Settings) -> list[Finding]:
    from alembic.runtime.migration import MigrationContext

    from app.db.engine import make_engine
    from app.db.migrate import current_heads

    engine = make_engine(settings.database_url)
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
            applied = set(MigrationContext.configure(connection).get_current_heads())
    except SQLAlchemyError as exc:
        return [Finding("error", f"the database is not reachable: {exc.__class__.__name__}")]
    finally:
        engine.dispose()
    heads = set(current_heads(settings.database_url))
    if applied != heads:
        return [
            Finding(
                "error",
                f"the database is at {sorted(applied) or 'no revision'}, the code expects "
                f"{sorted(heads)}: run `prefill db upgrade`.",
            )
        ]
    return []
