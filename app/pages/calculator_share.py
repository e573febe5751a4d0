"""The calculator's side of shared configs: a form's pasted text stored behind a link, and a
link's stored text put back into a form (app/shared_configs/service.py keeps the rows)."""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from fastapi import Request
from sqlalchemy.orm import Session

from app.pages.calculator_form import CalcForm
from app.shared_configs.service import ShareError, Stored, load, store


def attach_shared(db: Session, form: CalcForm) -> bool:
    """Fill a form's config, index and name from its link's row; False when there is none."""
    row = load(db, form.shared_id)
    if row is None:
        return False
    form.source = "config"
    form.config_text = row.config_text
    form.index_text = row.index_text or ""
    form.config_name = row.name or ""
    return True


def _json(text: str, field: str) -> object:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise ShareError(field, "not valid JSON") from None


def store_form(db: Session, form: CalcForm) -> Stored:
    """Store a form's pasted config (and index) for a link."""
    if not form.config_text.strip():
        raise ShareError("config", "paste a config.json (or choose a file) to get a link")
    config = _json(form.config_text, "config")
    index = _json(form.index_text, "index") if form.index_text.strip() else None
    return store(db, config, index, form.config_name or None)


def cross_site(request: Request) -> bool:
    """A browser request whose Origin names another site."""
    origin = request.headers.get("origin")
    return bool(origin and origin != "null" and urlsplit(origin).netloc != request.url.netloc)
