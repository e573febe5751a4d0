"""Search latency on a corpus scaled to 1,000 questions and 100,000 posts, next to /healthz.

Run by hand (not part of the suite):

    .venv/bin/python bench/bench_search.py [--postgres postgresql://postgres@127.0.0.1/postgres]

Builds a fresh, migrated database (SQLite in a temporary directory; with --postgres also a
throwaway database on that server), clones the real questions up to 1,000 (their sentences
shuffled so the clones differ), writes 100,000 generated posts drawn from the content's own
vocabulary, and times GET /search (the HTMX fragment, as live typing asks for it) through the
whole app for a few queries, against the trivial /healthz in the same run. Prints p50 and p99 in
milliseconds and the p50 ratio to /healthz.

Then "did you mean" at its worst, every request a fresh query (a parameter the page ignores keeps
the 2-second memory of visitors' results out of it): a 199-character query of 50 misspelt words
that match nothing, and the longest query still corrected (three misspelt words among eight, so
the suggestion and its retried search both run), each as a ratio to a normal search timed the
same way (issue 25 H-2: target within 3x). `--posts` makes a smaller corpus for a quick run.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import random
import re
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import create_engine, insert, text
from sqlalchemy.engine import make_url
from starlette.testclient import TestClient

from app.content.store import ContentStore
from app.db.base import utcnow
from app.db.engine import normalise_url
from app.db.migrate import upgrade
from app.db.models.discussion import Post
from app.main import create_app, load_site_content
from app.settings import PROJECT_ROOT, Settings

QUESTIONS = 1_000
POSTS = 100_000
QUERIES = [
    ("MLA", "one term"),
    ("prefix caching", "two terms"),
    ("p99 TTFT", "two terms"),
    ("kv cache", "very common"),
    ('"tensor parallelism"', "phrase"),
    ("nvlink bandw", "typing (prefix)"),
    ("xylophone", "no match"),
]


def scaled_store(store: ContentStore, count: int, rng: random.Random) -> ContentStore:
    """The real content with its questions cloned up to `count` (new slugs, shuffled answers)."""
    questions = list(store.questions)
    number = 0
    while len(questions) < count:
        source = store.questions[number % len(store.questions)]
        number += 1
        sentences = re.split(r"(?<=[.!?])\s+", source.answer_text)
        rng.shuffle(sentences)
        meta = source.meta.model_copy(
            update={"slug": f"{source.slug}-v{number}", "title": f"{source.title} (v{number})"}
        )
        questions.append(
            dataclasses.replace(source, meta=meta, answer_text=" ".join(sentences), concepts=[])
        )
    return ContentStore.build(
        tracks=[dataclasses.replace(t, questions=[], concepts=[]) for t in store.tracks],
        questions=questions,
        concepts=list(store.concepts),
        question_aliases={},
        concept_aliases={},
        fingerprint=f"bench-{count}-{store.fingerprint}",
    )


def write_posts(url: str, store: ContentStore, count: int, rng: random.Random) -> float:
    """Bulk-insert generated posts, then index them as the migration backfill does. Seconds."""
    vocabulary = re.findall(
        r"[A-Za-z][A-Za-z0-9-]+",
        " ".join(q.answer_text for q in store.questions[:60])
        + " ".join(c.body_text for c in store.concepts),
    )
    pages = [("question", q.slug) for q in store.questions] + [
        ("concept", c.slug) for c in store.concepts
    ]
    engine = create_engine(normalise_url(url))
    started = time.perf_counter()
    now = utcnow()
    with engine.begin() as connection:
        for start in range(0, count, 5_000):
            rows = []
            for _ in range(min(5_000, count - start)):
                kind, slug = rng.choice(pages)
                body = " ".join(rng.choices(vocabulary, k=rng.randint(15, 120)))
                rows.append(
                    {
                        "subject_type": kind,
                        "subject_slug": slug,
                        "body_markdown": body,
                        "body_html": "",
                        "score": 0,
                        "created_at": now,
                        "hidden_note": "",
                    }
                )
            connection.execute(insert(Post.__table__), rows)
        connection.execute(
            text(
                "INSERT INTO search_documents"
                " (kind, page, post_id, title, lede, body, answer, keywords)"
                " SELECT 'post', subject_type || ':' || subject_slug, id, '', '', body_markdown,"
                " '', '' FROM posts"
            )
        )
    if engine.dialect.name == "postgresql":
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.execute(text("VACUUM ANALYZE search_documents"))
            connection.execute(text("VACUUM ANALYZE posts"))
    engine.dispose()
    return time.perf_counter() - started


def timings(call: Callable[[], object], runs: int) -> tuple[float, float]:
    for _ in range(3):
        call()
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        call()
        samples.append((time.perf_counter() - started) * 1000)
    samples.sort()
    p99 = samples[min(len(samples) - 1, round(0.99 * (len(samples) - 1)))]
    return statistics.median(samples), p99


@contextmanager
def sqlite_database() -> Iterator[str]:
    with tempfile.TemporaryDirectory() as directory:
        yield f"sqlite:///{directory}/bench.db"


@contextmanager
def postgres_database(server: str) -> Iterator[str]:
    server_url = make_url(normalise_url(server))
    name = f"prefill_bench_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    admin = create_engine(server_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield server_url.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(
                text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE datname = :name AND pid <> pg_backend_pid()"
                ),
                {"name": name},
            )
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
        admin.dispose()


def misspelt(word: str, rng: random.Random) -> str:
    """One edit away: two neighbouring letters swapped (kv cache → kv cahce)."""
    at = rng.randrange(1, len(word) - 2)
    return word[:at] + word[at + 1] + word[at] + word[at + 2 :]


def worst_queries(store: ContentStore, rng: random.Random) -> dict[str, Callable[[], str]]:
    words = sorted(
        {
            w.lower()
            for w in re.findall(r"[A-Za-z]{6,9}", " ".join(q.title for q in store.questions))
        }
    )

    def long_query() -> str:  # ~199 characters, 50 words, none of them a word of the corpus
        picked = [misspelt(rng.choice(words), rng)[:3] + "q" for _ in range(50)]
        return " ".join(picked)[:199]

    def short_query() -> str:  # three typos among eight words: corrected, then searched again
        typos = [misspelt(rng.choice(words), rng) for _ in range(3)]
        return " ".join([*typos, rng.choice(words), rng.choice(words), "the", "of", "a"])[:80]

    return {"199 chars, 50 misspelt words": long_query, "8 words, 3 misspelt": short_query}


def fresh_timings(client: TestClient, make: Callable[[], str], runs: int) -> tuple[float, float]:
    """Timings of queries the visitors' 2-second memory cannot answer (a new `n` each time)."""
    counter = iter(range(10**9))

    def call() -> object:
        response = client.get(
            "/search", params={"q": make(), "n": str(next(counter))}, headers={"HX-Request": "true"}
        )
        assert response.status_code == 200, response.status_code
        return response

    return timings(call, runs)


def run(label: str, url: str, store: ContentStore, runs: int, posts: int) -> list[str]:
    rng = random.Random(20261130)
    upgrade(url)
    seconds = write_posts(url, store, posts, rng)
    settings = Settings.model_validate(
        {
            "env": "test",
            "database_url": url,
            "secret_key": "bench-secret-key-that-is-long-enough-for-signing",
            "mailer": "memory",
            "public_url": "http://bench",
            "rate_limits": False,  # one client sends thousands of searches a minute here
        }
    )
    started = time.perf_counter()
    app = create_app(settings, content=store)
    lines = []
    with TestClient(app) as client:  # start-up indexes the 1,000 questions and the cards
        startup = time.perf_counter() - started
        fragment = {"HX-Request": "true"}
        base50, base99 = timings(lambda: client.get("/healthz"), runs)
        lines.append(
            f"{label:<10} {'/healthz (baseline)':<36} {'':>8} {base50:8.2f} {base99:8.2f} {1:8.1f}"
        )
        for query, what in QUERIES:
            response = client.get("/search", params={"q": query}, headers=fragment)
            assert response.status_code == 200, (query, response.status_code)
            found = re.search(r"([\d,]+) results? for", response.text)
            total = found.group(1) if found else "0"

            def call(q: str = query) -> object:
                return client.get("/search", params={"q": q}, headers=fragment)

            p50, p99 = timings(call, runs)
            name = f"{query} ({what})"
            lines.append(
                f"{label:<10} {name:<36} {total:>8} {p50:8.2f} {p99:8.2f} {p50 / base50:8.1f}"
            )
        normal50, normal99 = fresh_timings(client, lambda: "prefix caching", runs)
        lines.append(
            f"{label:<10} {'prefix caching, uncached (normal)':<36} {'':>8} {normal50:8.2f}"
            f" {normal99:8.2f} {normal50 / base50:8.1f}"
        )
        for name, make in worst_queries(store, random.Random(11)).items():
            p50, p99 = fresh_timings(client, make, runs)
            lines.append(
                f"{label:<10} {name + ', uncached':<36} {'':>8} {p50:8.2f} {p99:8.2f}"
                f" {p50 / base50:8.1f}   {p50 / normal50:.2f}x a normal search"
            )
    app.state.db.dispose()
    print(
        f"{label}: {posts:,} posts written and indexed in {seconds:.1f}s; app start-up "
        f"(indexing {len(store.questions):,} questions + {len(store.concepts)} cards, counting"
        f" the spelling vocabulary) {startup:.2f}s",
        flush=True,
    )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", help="a PostgreSQL server URL: also run there")
    parser.add_argument("--runs", type=int, default=60, help="timed requests per query")
    parser.add_argument("--posts", type=int, default=POSTS, help="generated posts (default 100k)")
    args = parser.parse_args()
    store = scaled_store(load_site_content(PROJECT_ROOT / "content"), QUESTIONS, random.Random(7))
    lines = []
    with sqlite_database() as url:
        lines += run("SQLite", url, store, args.runs, args.posts)
    if args.postgres:
        with postgres_database(args.postgres) as url:
            lines += run("PostgreSQL", url, store, args.runs, args.posts)
    print()
    print(
        f"{'database':<10} {'GET /search?q= (HTMX fragment, visitor)':<36} {'results':>8} "
        f"{'p50 ms':>8} {'p99 ms':>8} {'p50/base':>8}"
    )
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
