"""Typed settings, read from the environment once, in create_app (never at import)."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent
VAR_DIR = PROJECT_ROOT / "var"
DEFAULT_SECRET_FILE = VAR_DIR / "secret_key"


def _default_database_url() -> str:
    return f"sqlite:///{VAR_DIR / 'prefill.db'}"


class Settings(BaseSettings):
    """Everything an operator can configure. Environment names are given in `validation_alias`."""

    model_config = SettingsConfigDict(extra="ignore", populate_by_name=True)

    env: Literal["development", "production", "test"] = Field(
        "development", validation_alias="PREFILL_ENV"
    )
    database_url: str = Field(
        default_factory=_default_database_url, validation_alias="DATABASE_URL"
    )
    secret_key: str = Field("", validation_alias="PREFILL_SECRET_KEY")
    content_dir: Path = Field(PROJECT_ROOT / "content", validation_alias="PREFILL_CONTENT_DIR")
    # Absolute origin used for canonical links, OpenGraph, sitemap and e-mails. Empty: the request's own.
    public_url: str = Field("", validation_alias="PREFILL_PUBLIC_URL")
    # Mail: "outbox" writes each message to var/outbox (so `make run` works offline); "smtp" sends.
    mailer: Literal["outbox", "smtp", "memory"] = Field("outbox", validation_alias="PREFILL_MAILER")
    outbox_dir: Path = Field(VAR_DIR / "outbox", validation_alias="PREFILL_OUTBOX_DIR")
    smtp_host: str = Field("localhost", validation_alias="PREFILL_SMTP_HOST")
    smtp_port: int = Field(587, validation_alias="PREFILL_SMTP_PORT")
    smtp_user: str = Field("", validation_alias="PREFILL_SMTP_USER")
    smtp_password: str = Field("", validation_alias="PREFILL_SMTP_PASSWORD")
    smtp_starttls: bool = Field(True, validation_alias="PREFILL_SMTP_STARTTLS")
    smtp_timeout: float = Field(15.0, gt=0, validation_alias="PREFILL_SMTP_TIMEOUT")
    mail_from: str = Field("Prefill <noreply@prefill.local>", validation_alias="PREFILL_MAIL_FROM")
    # Who sends the queued mail: a thread in every app process, or only `prefill worker` ("off").
    mail_worker: Literal["inprocess", "off"] = Field(
        "inprocess", validation_alias="PREFILL_MAIL_WORKER"
    )
    # Trust X-Forwarded-For/-Proto only from these proxies (addresses or CIDR networks,
    # comma-separated). Empty: trust no one; the socket's peer is the client.
    forwarded_allow_ips: str = Field("", validation_alias="PREFILL_FORWARDED_ALLOW_IPS")
    # Connection pool per process (PostgreSQL). Total connections = workers × (pool_size + overflow).
    db_pool_size: int = Field(20, validation_alias="PREFILL_DB_POOL_SIZE")
    db_max_overflow: int = Field(20, validation_alias="PREFILL_DB_MAX_OVERFLOW")
    # Per-process caches of live sessions, members' state versions and thread versions, kept
    # current by the database's change announcements (docs/security.md, "The session cache").
    # Off: every member request proves its session with a query, as before.
    live_cache: bool = Field(True, validation_alias="PREFILL_LIVE_CACHE")
    # Per-client request limits on the calculator, the sizing API and comment previews
    # (app/web/throttle.py). Off only for load tests: `prefill check --deploy` refuses it.
    rate_limits: bool = Field(True, validation_alias="PREFILL_RATE_LIMITS")
    # Worker processes per app process for sizing API requests (app/web/compute_pool.py);
    # 0 sizes in a worker thread instead.
    sizing_workers: int = Field(2, ge=0, le=64, validation_alias="PREFILL_SIZING_WORKERS")
    # Re-read content/ when files change (development only).
    reload_content: bool = Field(False, validation_alias="PREFILL_RELOAD_CONTENT")
    # Rendered content, reused by the next start while the content and code are unchanged
    # (shared by the processes on one machine). Empty: render everything at every start.
    render_cache: Path | None = Field(
        VAR_DIR / "cache" / "content-render.json", validation_alias="PREFILL_RENDER_CACHE"
    )

    @field_validator("public_url")
    @classmethod
    def _strip_slash(cls, value: str) -> str:
        return value.rstrip("/")

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")

    @property
    def is_production(self) -> bool:
        return self.env == "production"

    def resolved_secret_key(self) -> str:
        """The configured key, or in development a random one kept under var/ so sessions survive restarts."""
        if self.secret_key:
            return self.secret_key
        if self.is_production:
            raise RuntimeError("PREFILL_SECRET_KEY must be set when PREFILL_ENV=production")
        if DEFAULT_SECRET_FILE.exists():
            return DEFAULT_SECRET_FILE.read_text().strip()
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        key = secrets.token_urlsafe(48)
        DEFAULT_SECRET_FILE.write_text(key)
        DEFAULT_SECRET_FILE.chmod(0o600)
        return key
