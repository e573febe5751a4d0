"""`prefill check --deploy`: refuse unsafe production settings, one clear message each."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from app.settings import DEFAULT_SECRET_FILE, Settings

MIN_SECRET_LENGTH = 32


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
    elif len(secret) < MIN_SECRET_LENGTH:
        error(
            f"PREFILL_SECRET_KEY is too short: use at least {MIN_SECRET_LENGTH} random characters."
        )
    elif secret.lower() in {"changethis", "secret", "test-secret", "development"}:
        error("PREFILL_SECRET_KEY is a well-known placeholder; generate a random one.")
    if not settings.public_url:
        error(
            "PREFILL_PUBLIC_URL is not set: canonical links, feeds and e-mailed links would use "
            "whatever Host header a request sends."
        )
    elif not settings.public_url.startswith("https://"):
        error(
            f"PREFILL_PUBLIC_URL is {settings.public_url!r}: serve over https so session cookies "
            "are Secure and browsers get HSTS."
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
        warning(
            "PREFILL_FORWARDED_ALLOW_IPS is '*': any client can spoof its address (rate limits "
            "key on it). List your proxies' addresses instead."
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
