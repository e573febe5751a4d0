"""Load benchmark, run by hand: `make bench-load` (or `.venv/bin/python bench/bench_load.py`).

Starts the app as a real uvicorn process on a fresh database (SQLite by default, or
`--database-url postgresql://…`), seeds it (a member, a question with 200 posts), then drives
it with wrk (Debian's `wrk` package) at 32 connections and reports requests/s, p50 and p99 for
each endpoint, with the ratio to a trivial endpoint of the same app measured in the same run.
Then: page time as a question's thread grows from 10 to 100,000 posts, and start-up time and
memory with 1,000 generated questions.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx2  # noqa: E402
from sqlalchemy import insert  # noqa: E402

from app.accounts.service import create_user  # noqa: E402
from app.accounts.sessions import sign_token, start_session  # noqa: E402
from app.db.migrate import upgrade  # noqa: E402
from app.db.models.discussion import Post  # noqa: E402
from app.db.session import Database  # noqa: E402
from app.discussion.render import render_post  # noqa: E402
from app.discussion.stats import recount  # noqa: E402

SECRET = "bench-secret-key-0123456789abcdef0123456789abcdef"
# The server runs as production: its cookies always carry the __Host- prefix.
SESSION_COOKIE = "__Host-prefill_session"
CSRF_COOKIE = "__Host-prefill_csrf"
QUESTION = "/questions/kv-bound-deployment"
SLUG = "kv-bound-deployment"


def start_server(
    database_url: str, port: int, workdir: Path, workers: int = 1
) -> subprocess.Popen[bytes]:
    env = os.environ | {
        "DATABASE_URL": database_url,
        "PREFILL_SECRET_KEY": SECRET,
        "PREFILL_ENV": "production",
        "PREFILL_PUBLIC_URL": "https://prefill.example",
        "PREFILL_MAILER": "smtp",
    }
    with socket.socket() as probe:  # a leftover server on the port would be measured instead
        if probe.connect_ex(("127.0.0.1", port)) == 0:
            raise RuntimeError(f"port {port} is already in use; stop that server or pass --port")
    log = open(workdir / "server.log", "ab")  # noqa: SIM115
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "app.main:create_app", "--factory", "--port", str(port),
         "--log-level", "warning", "--workers", str(workers)],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    for _ in range(300):
        if process.poll() is not None:
            raise RuntimeError("server exited during start-up; see server.log")
        try:
            if httpx2.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return process
        except httpx2.TransportError:
            time.sleep(0.2)
    raise RuntimeError("server did not start; see server.log")


def seed(database_url: str, posts: int) -> str:
    """A member with a session (returns its cookie value) and `posts` posts on the question."""
    database = Database(database_url)
    with database.writer() as db, db.begin():
        user = create_user(
            db,
            email="bench@example.com",
            display_name="Bench",
            password="correct horse battery staple",
        )
        token = start_session(db, user, user_agent="wrk", ip_address="127.0.0.1")
    add_posts(database, posts, author_id=user.id)
    database.dispose()
    return sign_token(SECRET, token)


def add_posts(database: Database, count: int, author_id: int | None = None) -> None:
    body = "A worked approach with numbers: 2 × 80 × 8 × 128 × 2 = 327,680 bytes per token."
    html = render_post(body)
    with database.writer() as db, db.begin():
        for start in range(0, count, 5000):
            rows = [
                {"subject_type": "question", "subject_slug": SLUG, "author_id": author_id,
                 "body_markdown": body, "body_html": html, "score": n % 7, "hidden_note": ""}
                for n in range(start, min(count, start + 5000))
            ]  # fmt: skip
            db.execute(insert(Post), rows)
        recount(db, "question", SLUG)  # posts written in bulk, not through the service


def wrk(
    url: str, *, headers: dict[str, str] | None = None, script: Path | None = None, seconds: int = 8
) -> dict[str, float]:
    def command(duration: int) -> list[str]:
        args = ["wrk", "-t2", "-c32", f"-d{duration}s", "--latency"]
        # As a browser asks: compressing each response is a real cost, so it is measured.
        for name, value in ({"Accept-Encoding": "gzip, deflate, br"} | (headers or {})).items():
            args += ["-H", f"{name}: {value}"]
        if script:
            args += ["-s", str(script)]
        return [*args, url]

    # A short unmeasured run first: page caches, pools and connections
    # settle, so the measured run reports steady state rather than the first second of misses.
    subprocess.run(command(2), capture_output=True, check=True)
    output = subprocess.run(command(seconds), capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))  # type: ignore[union-attr]

    def latency(label: str) -> float:
        value, unit = re.search(rf"{label}\s+([\d.]+)(us|ms|s)", output).groups()  # type: ignore[union-attr]
        return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]

    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    return {
        "rps": rate,
        "p50": latency("50%"),
        "p99": latency("99%"),
        "non2xx": int(errors.group(1)) if errors else 0,
    }


def load_table(base: str, cookie: str, workdir: Path) -> list[tuple[str, dict[str, float]]]:
    sizing = workdir / "sizing.lua"
    sizing.write_text(
        'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n'
        f"wrk.body = {json.dumps(json.dumps({'model': 'llama-3.1-70b', 'gpu': 'H200', 'gpus': 8, 'context': 32768}))}\n"
    )
    # A browser keeps its CSRF cookie; without it every response would mint a new token.
    member = {"Cookie": f"{SESSION_COOKIE}={cookie}; {CSRF_COOKIE}=bench-browser-csrf-cookie"}
    hx = {"HX-Request": "true"}
    rows = [
        ("trivial endpoint (/ping)", wrk(base + "/ping")),
        ("anonymous question page", wrk(base + QUESTION)),
        ("signed-in question page, 200 posts", wrk(base + QUESTION, headers=member)),
        (
            "calculator fragment",
            wrk(base + "/calculator?model=llama-3.1-70b&gpu=H200&gpus=8&context=32768", headers=hx),
        ),
        ("sizing API (POST)", wrk(base + "/api/v1/sizing", script=sizing)),
        ("search fragment (q=kv cache)", wrk(base + "/search?q=kv+cache", headers=hx)),
    ]
    return rows


def page_time_as_threads_grow(
    database_url: str, port: int, workdir: Path
) -> list[tuple[int, float, float]]:
    """Median time of a visitor's and a member's question page at 10 … 100,000 posts."""
    results = []
    database = Database(database_url)
    cookie = None
    total = 0
    for target in (10, 1_000, 10_000, 100_000):
        add_posts(database, target - total)
        total = target
        server = start_server(database_url, port, workdir)
        try:
            if cookie is None:
                with database.writer() as db, db.begin():
                    user = create_user(
                        db,
                        email="grow@example.com",
                        display_name="Grow",
                        password="correct horse battery staple",
                    )
                    cookie = sign_token(
                        SECRET, start_session(db, user, user_agent="bench", ip_address="")
                    )
            visitor = [
                timed(f"http://127.0.0.1:{port}{QUESTION}?sort=top&n={n}") for n in range(30)
            ]
            member = [timed(f"http://127.0.0.1:{port}{QUESTION}?n={n}", cookie) for n in range(30)]
            results.append((target, statistics.median(visitor), statistics.median(member)))
        finally:
            server.terminate()
            server.wait()
    database.dispose()
    return results


def timed(url: str, cookie: str | None = None) -> float:
    cookies = {SESSION_COOKIE: cookie} if cookie else None
    start = time.perf_counter()
    response = httpx2.get(url, cookies=cookies, timeout=30)
    assert response.status_code == 200, response.status_code
    return (time.perf_counter() - start) * 1000


def startup_with_many_questions(workdir: Path, count: int = 1000) -> tuple[float, float]:
    """Seconds to load content and build the app with `count` questions, and the RSS in MiB."""
    content = workdir / "content"
    shutil.copytree(ROOT / "content", content)
    sources = sorted((content / "questions").glob("*.md"))
    for n in range(count - len(sources)):
        source = sources[n % len(sources)]
        slug = f"{source.stem}-copy-{n}"
        text = source.read_text().replace(f"slug: {source.stem}\n", f"slug: {slug}\n", 1)
        text = re.sub(r"\naliases: \[[^\]]*\]", "\naliases: []", text)
        (content / "questions" / f"{slug}.md").write_text(text)
    probe = (
        "import resource, time; t = time.perf_counter()\n"
        "from app.main import create_app; from app.settings import Settings\n"
        f"create_app(Settings(database_url='sqlite:///{workdir}/startup.db', content_dir='{content}', secret_key='{SECRET}', env='production'))\n"
        "print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)"
    )
    upgrade(f"sqlite:///{workdir}/startup.db")
    output = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    seconds, mib = output.stdout.split()
    return float(seconds), float(mib)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--database-url",
        help="PostgreSQL URL of an empty database (default: a temporary SQLite file)",
    )
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--skip-growth", action="store_true")
    parser.add_argument(
        "--workers", type=int, default=1, help="uvicorn worker processes (PostgreSQL)"
    )
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed: apt-get install wrk")
    workdir = Path(tempfile.mkdtemp(prefix="prefill-bench-"))
    database_url = args.database_url or f"sqlite:///{workdir / 'bench.db'}"
    upgrade(database_url)
    cookie = seed(database_url, 200)
    server = start_server(database_url, args.port, workdir, args.workers)
    base = f"http://127.0.0.1:{args.port}"
    try:
        for path in ("/ping", QUESTION, "/search?q=kv+cache"):  # warm caches
            httpx2.get(base + path)
        rows = load_table(base, cookie, workdir)
    finally:
        server.terminate()
        server.wait()
    trivial = rows[0][1]["rps"]
    print(
        f"\nLoad: wrk -t2 -c32 -d8s (Accept-Encoding: gzip), {args.workers} uvicorn process(es), {database_url.split(':')[0]}\n"
    )
    print("| endpoint | requests/s | p50 ms | p99 ms | vs trivial | non-2xx |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, row in rows:
        print(
            f"| {name} | {row['rps']:,.0f} | {row['p50']:.1f} | {row['p99']:.1f} | {row['rps'] / trivial:.0%} | {row['non2xx']} |"
        )
    if not args.skip_growth and not args.database_url:
        growth_db = f"sqlite:///{workdir / 'growth.db'}"
        upgrade(growth_db)
        print("\nQuestion page as its thread grows (median of 30 sequential requests, ms)\n")
        print("| posts on the question | visitor | member |")
        print("|---:|---:|---:|")
        for posts, visitor, member in page_time_as_threads_grow(growth_db, args.port, workdir):
            print(f"| {posts:,} | {visitor:.1f} | {member:.1f} |")
    seconds, mib = startup_with_many_questions(workdir)
    print(
        f"\nStart-up with 1,000 questions: {seconds:.1f} s to load content and build the app; peak RSS {mib:.0f} MiB\n"
    )


if __name__ == "__main__":
    main()
