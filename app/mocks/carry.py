"""A visitor's mock carried into their account at sign-up (or sign-in), in that same POST: the
run from its signed cookie, the texts from the sign-up form (put there by the debrief's "Sign
up to score it"). It becomes a member's mock like any other, its texts their attempts, and the
cookie goes."""

from __future__ import annotations

import json

from fastapi import Request
from fastapi.responses import Response
from sqlalchemy.orm import Session

from app.content.store import ContentStore
from app.db.models.accounts import User
from app.db.models.mocks import Mock
from app.db.models.practice import mock_context
from app.mocks import service, store, visitor
from app.mocks.view import TEXT_FIELD
from app.practice.service import ATTEMPT_MAX, PracticeError, save_draft

MAX_CARRIED = 200_000  # characters of JSON: every answer and follow-up of a 60-minute mock


def encode_texts(texts: dict[str, str]) -> str:
    return json.dumps(texts, separators=(",", ":"))


def decode_texts(raw: str) -> dict[str, str]:
    if not raw or len(raw) > MAX_CARRIED:
        return {}
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):  # not JSON, or nested past the parser's depth
        return {}
    if not isinstance(data, dict):
        return {}
    return {
        k: v
        for k, v in data.items()
        if isinstance(k, str)
        and TEXT_FIELD.match(k)
        and isinstance(v, str)
        and len(v) <= ATTEMPT_MAX
    }


def adopt(
    request: Request,
    response: Response,
    db: Session,
    content: ContentStore,
    user: User,
    raw_texts: str,
) -> Mock | None:
    """Move this browser's mock into `user`'s account, if there is one."""
    found = visitor.current(request, content)
    if found is None:
        return None
    _, run = found
    now = request.app.state.clock()
    mock = Mock(
        user_id=user.id,
        focus=run.focus,
        level=run.level,
        minutes=run.minutes,
        question_slugs=run.slugs,
        note=run.note,
        warmup_skill=run.warmup_skill,
        warmup_seed=run.warmup_seed,
        started_at=run.started_at,
        deadline=run.deadline,
        timeline={},
        updated_at=now,
    )
    db.add(mock)
    db.flush()
    texts = decode_texts(raw_texts)
    late = dict(run.late)
    run.late = {}
    for key, body in texts.items():
        match = TEXT_FIELD.match(key)
        assert match is not None
        index = int(match.group(1))
        follow_up = int(match.group(2)) if match.group(2) else None
        if index >= run.count or not body.strip():
            continue
        context = mock_context(mock.id, follow_up)
        try:
            save_draft(db, user, (run.slugs[index],), body, context)
        except PracticeError:
            continue
        if key in late:
            run.late[key] = late[key]
    store.write_run(mock, run, now)
    if run.ended(now):
        service.end(db, user, content, mock, now)
    visitor.forget(request, response)
    return mock
