"""Do stalled request bodies stop anyone else's writes? Run by hand:

    .venv/bin/python bench/bench_slow_body.py [--stalled 20] [--rounds 12]

Starts the app as a real uvicorn process on SQLite (one worker, the default set-up), signs a
member up, then times that member's sign-in (`POST /login`: a write, behind the SQLite write
gate) one after another, twice: on an idle server, and while `--stalled` other connections have
each declared a 100,000-byte body to `POST /login`, sent six bytes of it and stopped. Before the
body was read outside the gate (app/web/body_limit.py), one such connection held the write slot
until it closed: every sign-in waited (45 s in the assessment). Prints p50 and p99 in ms and the
p50 ratio to idle; then how long the server takes to refuse a stalled body (408).
"""

from __future__ import annotations

import argparse
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_load import ROOT, start_server

sys.path.insert(0, str(ROOT))

import httpx2

from app.accounts.service import create_user
from app.db.session import Database

PASSWORD = "correct horse battery staple"


def make_member(database_url: str, email: str) -> None:
    database = Database(database_url)
    with database.writer() as db, db.begin():
        create_user(db, email=email, display_name="Bench", password=PASSWORD)
    database.dispose()


def sign_in_latencies(base: str, email: str, rounds: int) -> list[float]:
    """A fresh browser each time: the sign-in page, then the timed POST. The server runs as
    production, so its cookies are `Secure`: sent by hand over this plain-HTTP loopback."""
    out = []
    for _ in range(rounds):
        with httpx2.Client(base_url=base, timeout=120) as client:
            page = client.get("/login")
            cookie = page.headers["set-cookie"].split(";", 1)[0]
            match = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
            assert match, "no CSRF token on /login"
            data = {"email": email, "password": PASSWORD, "csrf_token": match.group(1)}
            start = time.perf_counter()
            response = client.post("/login", data=data, headers={"cookie": cookie})
            out.append((time.perf_counter() - start) * 1000)
            assert response.status_code == 303, response.status_code
    return out


def stall(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(
        b"POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/x-www-form-urlencoded\r\n"
        b"Content-Length: 100000\r\n\r\nemail="
    )
    return sock


def refusal_seconds(port: int) -> tuple[float, str]:
    """How long until the server answers a stalled body, and its status line."""
    sock = stall(port)
    sock.settimeout(120)
    start = time.perf_counter()
    try:
        first = sock.recv(200).split(b"\r\n", 1)[0].decode(errors="replace")
    finally:
        sock.close()
    return time.perf_counter() - start, first


def summary(latencies: list[float]) -> tuple[float, float]:
    cuts = statistics.quantiles(latencies, n=100)
    return cuts[49], cuts[98]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8767)
    parser.add_argument("--stalled", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=12, help="sign-in allows 30 per 15 min")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        database_url = f"sqlite:///{workdir / 'bench.db'}"
        subprocess.run(
            [str(ROOT / ".venv/bin/prefill"), "db", "upgrade"],
            env={"DATABASE_URL": database_url, "PATH": "/usr/bin:/bin"}, check=True, cwd=ROOT,
        )  # fmt: skip
        email = "bench@example.com"
        make_member(database_url, email)
        server = start_server(database_url, args.port, workdir)
        base = f"http://127.0.0.1:{args.port}"
        try:
            sign_in_latencies(base, email, 3)  # warm up
            idle = summary(sign_in_latencies(base, email, args.rounds))
            sockets = [stall(args.port) for _ in range(args.stalled)]
            time.sleep(0.5)
            try:
                loaded = summary(sign_in_latencies(base, email, args.rounds))
            finally:
                for sock in sockets:
                    sock.close()
            seconds, status = refusal_seconds(args.port)
        finally:
            server.terminate()
            server.wait(timeout=20)
    print(f"{'sign-in while':<32} {'p50 ms':>8} {'p99 ms':>8} {'p50 ratio':>10}")
    print(f"{'idle':<32} {idle[0]:8.1f} {idle[1]:8.1f} {1:10.2f}")
    label = f"{args.stalled} stalled bodies held open"
    print(f"{label:<32} {loaded[0]:8.1f} {loaded[1]:8.1f} {loaded[0] / idle[0]:10.2f}")
    print(f"a stalled body is answered after {seconds:.1f} s: {status}")


if __name__ == "__main__":
    main()
