"""Load benchmark, run by hand: `make bench-load` (or `.venv/bin/python bench/bench_load.py`).

Starts the app as a real uvicorn process on a fresh database (SQLite by default, or
`--database-url postgresql://…`), seeds it (a member, a question with 200 posts), then drives
it with wrk (Debian's `wrk` package) at 32 connections and reports requests/s, p50 and p99 for
each endpoint, with the ratio to a trivial endpoint of the same app measured in the same run.
The sizing API is measured twice: one body sent over and over (the per-process memo's best
case) and a stream of 2,400 distinct bodies (bench/sizing_stream.py: presets × GPUs × GPU
counts × contexts × concurrency, one in ten an inline config). Then: page time as a question's
thread grows from 10 to 100,000 posts, the planner's typical plans and the slowest sizing with a
workload (in this process, after the server has stopped), each target of issues "Speed v2" and
"Speed v3" as met or not, and start-up (bench/bench_startup.py). It prints the machine's load
averages before and after the load table and the plan timings: on a shared machine the ratios
hold up better than the absolute figures, but both move with the load.

Issue 35's run: `--database-url postgresql://…/empty_db --workers 2 --only
trivial,member,sizing,stream --skip-growth --skip-startup`.
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
from app.web.cookies import CookiePolicy  # noqa: E402
from bench.bench_planner import quantile, typical_plans  # noqa: E402
from bench.bench_sizing import slowest_workload_cpu_us  # noqa: E402
from bench.bench_startup import report as startup_report  # noqa: E402
from bench.sizing_stream import STREAM_BODIES, lua_script, sizing_bodies  # noqa: E402

SECRET = "bench-secret-key-0123456789abcdef0123456789abcdef"
QUESTION = "/questions/kv-bound-deployment"
SLUG = "kv-bound-deployment"
# The server runs as production: its cookies carry the `__Host-` prefix.
COOKIES = CookiePolicy(secure=True)


def start_server(
    database_url: str, port: int, workdir: Path, workers: int = 1
) -> subprocess.Popen[bytes]:
    env = os.environ | {
        "DATABASE_URL": database_url,
        "PREFILL_SECRET_KEY": SECRET,
        "PREFILL_ENV": "production",
        "PREFILL_PUBLIC_URL": "https://prefill.example",
        "PREFILL_MAILER": "smtp",
        # wrk sends thousands of requests a minute from one address: measure the app, not 429s.
        "PREFILL_RATE_LIMITS": "false",
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
            raise RuntimeError(f"server exited during start-up; see {workdir / 'server.log'}")
        try:
            if httpx2.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return process
        except httpx2.TransportError:
            time.sleep(0.2)
    process.terminate()  # a supervisor that keeps restarting crashed workers must not outlive us
    process.wait()
    raise RuntimeError(f"server did not start; see {workdir / 'server.log'}")


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


ROWS = ("trivial", "anonymous", "member", "calculator", "sizing", "stream", "search")


def load_table(
    base: str, cookie: str, workdir: Path, only: tuple[str, ...] = ROWS
) -> list[tuple[str, dict[str, float]]]:
    sizing = workdir / "sizing.lua"
    sizing.write_text(
        'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n'
        f"wrk.body = {json.dumps(json.dumps({'model': 'llama-3.1-70b', 'gpu': 'H200', 'gpus': 8, 'context': 32768}))}\n"
    )
    stream = (
        lua_script(sizing_bodies(), workdir / "sizing-stream.lua") if "stream" in only else None
    )
    # A browser keeps its CSRF cookie; without it every response would mint a new token.
    member = {"Cookie": f"{COOKIES.session}={cookie}; {COOKIES.csrf}=bench-browser-csrf-cookie"}
    hx = {"HX-Request": "true"}
    calculator = "/calculator?model=llama-3.1-70b&gpu=H200&gpus=8&context=32768"
    runs = {
        "trivial": ("trivial endpoint (/ping)", lambda: wrk(base + "/ping")),
        "anonymous": ("anonymous question page", lambda: wrk(base + QUESTION)),
        "member": (
            "signed-in question page, 200 posts",
            lambda: wrk(base + QUESTION, headers=member),
        ),
        "calculator": ("calculator fragment", lambda: wrk(base + calculator, headers=hx)),
        "sizing": ("sizing API (POST)", lambda: wrk(base + "/api/v1/sizing", script=sizing)),
        "stream": (
            f"sizing API, {STREAM_BODIES:,} distinct bodies",
            lambda: wrk(base + "/api/v1/sizing", script=stream),
        ),
        "search": (
            "search fragment (q=kv cache)",
            lambda: wrk(base + "/search?q=kv+cache", headers=hx),
        ),
    }
    # The trivial endpoint always runs: every other row is a ratio to it.
    return [(runs[key][0], runs[key][1]()) for key in ROWS if key == "trivial" or key in only]


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
    cookies = {COOKIES.session: cookie} if cookie else None
    start = time.perf_counter()
    response = httpx2.get(url, cookies=cookies, timeout=30)
    assert response.status_code == 200, response.status_code
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--database-url",
        help="PostgreSQL URL of an empty database (default: a temporary SQLite file)",
    )
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--skip-growth", action="store_true")
    parser.add_argument("--skip-startup", action="store_true")
    parser.add_argument("--skip-plans", action="store_true", help="no planner/workload timing")
    parser.add_argument(
        "--workers", type=int, default=1, help="uvicorn worker processes (PostgreSQL)"
    )
    parser.add_argument(
        "--only",
        default=",".join(ROWS),
        help=f"comma-separated rows of the load table (of {', '.join(ROWS)}); "
        "the trivial endpoint always runs",
    )
    args = parser.parse_args()
    only = tuple(name.strip() for name in args.only.split(",") if name.strip())
    if unknown := set(only) - set(ROWS):
        sys.exit(f"--only: unknown rows {', '.join(sorted(unknown))}")
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
        load_before = os.getloadavg()
        rows = load_table(base, cookie, workdir, only)
        load_after = os.getloadavg()
    finally:
        server.terminate()
        server.wait()
    trivial = rows[0][1]["rps"]
    print(
        f"\nLoad: wrk -t2 -c32 -d8s (Accept-Encoding: gzip), {args.workers} uvicorn process(es), {database_url.split(':')[0]}\n"
    )
    print(
        "Machine load (1/5/15-minute averages, {} cores): {} before, {} after\n".format(
            os.cpu_count(),
            " ".join(f"{value:.2f}" for value in load_before),
            " ".join(f"{value:.2f}" for value in load_after),
        )
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
    by_name = dict(rows)
    member = by_name.get("signed-in question page, 200 posts")
    sizing = by_name.get("sizing API (POST)")
    stream = by_name.get(f"sizing API, {STREAM_BODIES:,} distinct bodies")
    print("\nTargets, measured against the trivial endpoint in this run:\n")
    if member is not None:
        _target(
            "member's page ≥ 30% of trivial (Speed v3)",
            member["rps"] / trivial >= 0.30,
            f"{member['rps'] / trivial:.0%}",
        )
        _target(
            "member's page p99 ≤ 50 ms (Speed v3)", member["p99"] <= 50, f"{member['p99']:.0f} ms"
        )
    if sizing is not None:
        _target(
            "sizing API, one repeated body, ≥ 70% of trivial (Speed v2)",
            sizing["rps"] / trivial >= 0.70,
            f"{sizing['rps'] / trivial:.0%}",
        )
    if stream is not None:
        _target(
            f"sizing API, {STREAM_BODIES:,} distinct bodies (one in ten a config), "
            "≥ 60% of trivial (Speed v3)",
            stream["rps"] / trivial >= 0.60 and stream["non2xx"] == 0,
            f"{stream['rps'] / trivial:.0%}, p99 {stream['p99']:.0f} ms, "
            f"{stream['non2xx']:.0f} non-2xx",
        )
    if not args.skip_plans:
        _plan_targets()
    if not args.skip_startup:
        print("\nStart-up (bench/bench_startup.py):\n")
        startup_report(repeat=1, questions=1000)


def _plan_targets() -> None:
    """The planner's and the workload model's time, in this process (the app is stopped)."""
    before = os.getloadavg()
    times, cpu = typical_plans()
    wall = [ms for ms, _ in times]
    p50, p99 = quantile(wall, 0.5), quantile(wall, 0.99)
    detail = f"CPU p50 {quantile(cpu, 0.5):,.0f} ms, p99 {quantile(cpu, 0.99):,.0f} ms"
    label = f"typical plan ({len(wall)} plans, bench/bench_planner.py)"
    _target(f"{label} p50 ≤ 300 ms (Speed v3)", p50 <= 300, f"{p50:,.0f} ms ({detail})")
    _target(f"{label} p99 ≤ 1.5 s (Speed v3)", p99 <= 1500, f"{p99:,.0f} ms, worst {max(times)[1]}")
    slowest, preset = slowest_workload_cpu_us()
    _target(
        "size() with a workload ≤ 2 ms of CPU, slowest preset (Speed v3)",
        slowest <= 2000,
        f"{slowest / 1000:.2f} ms ({preset})",
    )
    after = os.getloadavg()
    print(f"  (machine load while timing these: {before[0]:.2f} before, {after[0]:.2f} after)")


def _target(label: str, met: bool, measured: str) -> None:
    print(f"- {label}: {measured} — {'met' if met else 'NOT met'}")


if __name__ == "__main__":
    main()
