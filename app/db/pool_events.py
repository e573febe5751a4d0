"""Pool hooks for PostgreSQL: cheaper liveness than a ping per checkout, and this process's
writes made known to the cache's listener.

**Liveness.** `pool_pre_ping` costs a round trip on every checkout (about 0.1 ms of a 0.7 ms
session lookup, docs/benchmarks.md). The cache's listener already proves the server alive
every 0.2 s and sees a restart or a lost network the moment it happens, so a pooled connection
is pinged only when that proof does not cover it:

- the listener is down or late (no answered heartbeat within its deadline), or
- the connection was last used before the listener last lost the server (a restart or a
  failover: those connections are dead), or
- it sat unused in the pool for more than IDLE_PING_SECONDS (a firewall or the server's
  idle timeout may have closed it quietly; the listener's own connection is never idle).

A failed ping replaces the connection before any request uses it, as pre-ping would. What
this gives up: a single server process killed by an operator (`pg_terminate_backend` on a pool
connection) while the server stays up fails the one request that next uses that connection;
SQLAlchemy then marks every older pooled connection for replacement.

**Local writes.** A write committed through this process must not be followed, in this
process, by a cached page from before it. A transaction that ran a data-changing statement and
committed is reported at the pool's check-in (after the commit, before the response goes out)
to the listener, which holds the cache back until it has caught up. Transactions that only read
(every GET's, the mail worker's polls) hold nothing back.
"""

from __future__ import annotations

import math
import re
import time

from sqlalchemy import Engine, event
from sqlalchemy.exc import InvalidatePoolError

from app.db.pg_listener import PostgresListener

IDLE_PING_SECONDS = 10.0
_USED_AT = "prefill_used_at"
_PENDING = "prefill_writing"  # a data-changing statement ran in the open transaction
_WROTE = "prefill_wrote"  # … and it committed
# Statements that may change rows. A SELECT (even FOR UPDATE, as the mail worker's poll) does
# not hold the cache back; a CTE counts, since it may hide a data-changing statement.
_WRITES = re.compile(r"\s*(INSERT|UPDATE|DELETE|MERGE|TRUNCATE|COPY|CALL|DO|WITH)\b", re.I)


def install(engine: Engine, listener: PostgresListener) -> None:
    dialect = engine.dialect

    @event.listens_for(engine, "connect")
    def fresh(_dbapi_connection, record) -> None:  # type: ignore[no-untyped-def]
        record.info[_USED_AT] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def check(dbapi_connection, record, _proxy) -> None:  # type: ignore[no-untyped-def]
        used = record.info.get(_USED_AT, -math.inf)
        vouched = listener.healthy_since() > -math.inf
        if vouched and used > listener.lost_at and time.monotonic() - used < IDLE_PING_SECONDS:
            return
        try:
            dialect.do_ping(dbapi_connection)
        except dialect.loaded_dbapi.Error as error:
            # The pool replaces this connection and every older one, then tries again.
            raise InvalidatePoolError(f"ping failed: {error}") from error
        record.info[_USED_AT] = time.monotonic()

    @event.listens_for(engine, "after_cursor_execute")
    def executed(connection, _cursor, statement, _parameters, context, _many) -> None:  # type: ignore[no-untyped-def]
        if _WRITES.match(statement) or (
            context is not None and (context.isinsert or context.isupdate or context.isdelete)
        ):
            connection.info[_PENDING] = True

    @event.listens_for(engine, "commit")
    def committing(connection) -> None:  # type: ignore[no-untyped-def]
        if connection.info.pop(_PENDING, False):
            connection.info[_WROTE] = True

    @event.listens_for(engine, "rollback")
    def rolled_back(connection) -> None:  # type: ignore[no-untyped-def]
        connection.info.pop(_PENDING, None)

    @event.listens_for(engine, "checkin")
    def returned(_dbapi_connection, record) -> None:  # type: ignore[no-untyped-def]
        record.info[_USED_AT] = time.monotonic()
        record.info.pop(_PENDING, None)
        if record.info.pop(_WROTE, False):
            listener.local_write()
