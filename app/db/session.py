"""The database a running app talks to, and the one-transaction-per-request dependency."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy import Engine, text
from sqlalchemy.orm import Session, sessionmaker

from app.db.engine import make_engine, make_sessionmakers

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
AFTER_COMMIT = "after_commit"


class Database:
    """One engine per process and the two session factories built on it."""

    def __init__(self, url: str, *, pool_size: int = 5, max_overflow: int = 10) -> None:
        self.engine: Engine = make_engine(url, pool_size=pool_size, max_overflow=max_overflow)
        self.reader: sessionmaker[Session]
        self.writer: sessionmaker[Session]
        self.reader, self.writer = make_sessionmakers(self.engine)

    def ping(self) -> None:
        with self.engine.connect() as connection:
            connection.execute(text("SELECT 1"))

    def dispose(self) -> None:
        self.engine.dispose()


def get_db(request: Request) -> Iterator[Session]:
    """The request's unit of work: commit when the handler returns, roll back if it raises.

    Used with scope="function" so the commit happens before the response is sent: a client never
    sees success for a write that did not land. Services flush; only this commits.
    """
    database: Database = request.app.state.db
    factory = database.reader if request.method in SAFE_METHODS else database.writer
    session = factory()
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()
    for callback in session.info.get(AFTER_COMMIT, ()):
        callback()


def after_commit(session: Session, callback: Callable[[], None]) -> None:
    """Run `callback` once the request's transaction has committed (e.g. send an e-mail).

    A message about a row that was rolled back would point at nothing.
    """
    session.info.setdefault(AFTER_COMMIT, []).append(callback)


DbSession = Annotated[Session, Depends(get_db, scope="function")]
