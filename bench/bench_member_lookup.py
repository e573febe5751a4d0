"""What a member's read costs before the page cache answers, run by hand:
`.venv/bin/python bench/bench_member_lookup.py --database-url postgresql://…/empty_db`
(default: a temporary SQLite file).

Per call, in this process: the session-and-state lookup as the ORM statement the app used
before (with and without the pool's pre-ping), as the Core statement it uses now, and from the
per-process session cache; the thread's version as a query and from the version map. Each
figure is the median of several rounds; the ratio column compares with the first row.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlalchemy import bindparam, select  # noqa: E402

from app.accounts.passwords import use_fast_hashing_for_tests  # noqa: E402
from app.accounts.service import create_user  # noqa: E402
from app.accounts.session_cache import SessionCache  # noqa: E402
from app.accounts.sessions import start_session, token_hash  # noqa: E402
from app.db.base import utcnow  # noqa: E402
from app.db.invalidation import thread_key  # noqa: E402
from app.db.migrate import upgrade  # noqa: E402
from app.db.models.accounts import User, UserSession  # noqa: E402
from app.db.models.discussion import ThreadStats  # noqa: E402
from app.db.session import Database  # noqa: E402
from app.discussion import stats  # noqa: E402
from app.discussion.subjects import Subject  # noqa: E402
from app.discussion.versions import version_map  # noqa: E402
from app.web import member_state  # noqa: E402

# The ORM statement the app ran on every member read before Speed v3.
ORM_SESSION_AND_STATE = (
    select(UserSession, User, *member_state._state_columns(User.id))  # type: ignore[arg-type]
    .join(User, User.id == UserSession.user_id)
    .where(
        UserSession.token_hash == bindparam("token_hash"),
        UserSession.revoked_at.is_(None),
        UserSession.expires_at > bindparam("now"),
    )
)
ORM_VERSION = (
    select(ThreadStats.subject_slug, ThreadStats.version, ThreadStats.visible_count)
    .where(
        ThreadStats.subject_type == bindparam("kind"),
        ThreadStats.subject_slug.in_(bindparam("slugs", expanding=True)),
    )
    .order_by(ThreadStats.subject_slug)
)


def per_call_us(function: Callable[[], object], calls: int, rounds: int = 5) -> float:
    for _ in range(calls // 10):
        function()  # warm: prepared statements, compiled cache
    timings = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(calls):
            function()
        timings.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--database-url", help="an empty PostgreSQL database (default: SQLite)")
    parser.add_argument("--calls", type=int, default=1000)
    args = parser.parse_args()
    use_fast_hashing_for_tests()  # the member is made here; sign-in is not what is measured
    url = args.database_url or f"sqlite:///{Path(tempfile.mkdtemp()) / 'lookup.db'}"
    upgrade(url)
    database = Database(url)
    database.start()
    with database.writer() as db, db.begin():
        user = create_user(
            db,
            email="lookup@example.com",
            display_name="Lookup",
            password="correct horse battery staple",
        )
        hashed = token_hash(start_session(db, user, user_agent="", ip_address=""))
        stats.recount(db, "question", "kv-bound-deployment")
    subject = Subject("question", "kv-bound-deployment")
    deadline = time.monotonic() + 10
    while not database.invalidations.usable() and time.monotonic() < deadline:
        time.sleep(0.01)
    server = database.engine.dialect.name != "sqlite"

    def in_transaction(work: Callable[[object], object]) -> Callable[[], object]:
        def run() -> object:
            with database.reader() as db:
                result = work(db)
                db.commit()
                return result

        return run

    orm = in_transaction(
        lambda db: db.execute(
            ORM_SESSION_AND_STATE, {"token_hash": hashed, "now": utcnow()}
        ).first()  # type: ignore[attr-defined]
    )
    core = in_transaction(lambda db: member_state.fetch_session_record(db, hashed))  # type: ignore[arg-type]
    sessions = SessionCache(database.invalidations)

    def cache_hit() -> object:
        found = sessions.cached(hashed)
        if found is None:  # the warm-up's first call fills it
            found = in_transaction(lambda db: sessions.fetch(db, hashed))()  # type: ignore[arg-type]
        return found

    rows: list[tuple[str, float]] = [
        ("session + state, ORM statement", per_call_us(orm, args.calls))
    ]
    if server:
        # As if no listener vouched for the pool: the checkout hook pings every time, which is
        # what `pool_pre_ping` did.
        vouch = database.invalidations.healthy_since  # type: ignore[attr-defined]
        database.invalidations.healthy_since = lambda: float("-inf")  # type: ignore[attr-defined]
        pinged = per_call_us(orm, args.calls)
        database.invalidations.healthy_since = vouch  # type: ignore[attr-defined]
        rows.insert(0, ("session + state, ORM, ping on every checkout (before)", pinged))
    rows += [
        ("session + state, Core statement", per_call_us(core, args.calls)),
        # Kept right before it is timed: an entry lives 10 s.
        ("session + state, session cache hit", per_call_us(cache_hit, args.calls)),
        ("thread version, ORM statement", per_call_us(in_transaction(
            lambda db: db.execute(ORM_VERSION, {"kind": "question", "slugs": [subject.slug]}).all()  # type: ignore[attr-defined]
        ), args.calls)),
        ("thread version, Core statement", per_call_us(in_transaction(
            lambda db: stats.thread_version(db, subject)  # type: ignore[arg-type]
        ), args.calls)),
    ]  # fmt: skip
    versions = version_map(database.invalidations)
    keys = (thread_key("question", subject.slug),)
    versions.put(("question", subject.slugs), (1,), keys, versions.ticket())
    rows.append(
        ("thread version, map hit", per_call_us(lambda: versions.get(("question", subject.slugs)), args.calls))
    )  # fmt: skip
    database.dispose()
    base = rows[0][1]
    print(f"\nMember lookups, {url.split(':')[0]}, median µs per call of 5 × {args.calls}\n")
    print("| lookup | µs per call | vs first row |")
    print("|---|---:|---:|")
    for name, value in rows:
        print(f"| {name} | {value:,.1f} | {value / base:.2f}× |")


if __name__ == "__main__":
    main()
