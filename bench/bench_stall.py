"""Does a costly sizing request stall the server? Run by hand: `.venv/bin/python bench/bench_stall.py`.

Starts the app as a real uvicorn process (one worker, SQLite, rate limits off so the load is not
answered with 429s), then times `GET /ping` one request after another, twice: on an idle
server, and while other connections send the most expensive config the sizing reader accepts
(built by tests/sizing/test_sizing_bounds.py: 1,024 layers, every per-layer list at full length,
the rest of the 50,000-value budget in one list) to `POST /api/v1/sizing` back to back. If
sizing ran on the event loop, each `/ping` would wait behind a sizing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench_load import ROOT, start_server

sys.path.insert(0, str(ROOT))

import httpx2

from tests.sizing.test_sizing_bounds import worst_case_configs


def ping_latencies(base: str, seconds: float) -> list[float]:
    out = []
    with httpx2.Client(base_url=base) as client:
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            start = time.perf_counter()
            assert client.get("/ping").status_code == 200
            out.append((time.perf_counter() - start) * 1000)
    return out


def send_sizing(base: str, body: bytes, stop: threading.Event, statuses: list[int]) -> None:
    headers = {"content-type": "application/json"}
    with httpx2.Client(base_url=base, timeout=30) as client:
        while not stop.is_set():
            response = client.post("/api/v1/sizing", content=body, headers=headers)
            statuses.append(response.status_code)


def summary(latencies: list[float]) -> dict[str, float]:
    cuts = statistics.quantiles(latencies, n=100)
    return {"n": len(latencies), "p50": cuts[49], "p99": cuts[98], "max": max(latencies)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8766)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--connections", type=int, default=4, help="sizing senders")
    args = parser.parse_args()
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        database_url = f"sqlite:///{workdir / 'bench.db'}"
        subprocess.run(
            [str(ROOT / ".venv/bin/prefill"), "db", "upgrade"],
            env={"DATABASE_URL": database_url, "PATH": "/usr/bin:/bin"}, check=True, cwd=ROOT,
        )  # fmt: skip
        server = start_server(database_url, args.port, workdir)
        base = f"http://127.0.0.1:{args.port}"
        try:
            ping_latencies(base, 1)  # warm up
            results["idle"] = summary(ping_latencies(base, args.seconds))
            for name, config in worst_case_configs().items():
                body = json.dumps({"config": config, "gpu": "H200", "gpus": 8, "context": 8192})
                # One request first: the sizing workers are up before timing starts.
                with httpx2.Client(base_url=base, timeout=60) as client:
                    client.post("/api/v1/sizing", content=body.encode(),
                                headers={"content-type": "application/json"})  # fmt: skip
                stop, counts = threading.Event(), []
                senders = [
                    threading.Thread(target=send_sizing, args=(base, body.encode(), stop, counts))
                    for _ in range(args.connections)
                ]
                for sender in senders:
                    sender.start()
                time.sleep(0.5)
                row = summary(ping_latencies(base, args.seconds))
                stop.set()
                for sender in senders:
                    sender.join()
                # A family the core refuses (422, named) is answered too: the reader ran in full.
                answered = counts.count(200) + counts.count(422)
                row["sizing_per_s"] = answered / (args.seconds + 0.5)
                row["sizing_errors"] = len(counts) - answered
                results[f"worst-case sizing ({name}) x{args.connections}"] = row
        finally:
            server.terminate()
            server.wait()
    print(
        f"{'/ping while':<36} {'n':>6} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} "
        f"{'answers/s':>9} {'5xx':>8}"
    )
    for label, row in results.items():
        rate = (
            f"{row['sizing_per_s']:>9.1f} {row['sizing_errors']:>8}"
            if "sizing_per_s" in row
            else ""
        )
        print(
            f"{label:<36} {row['n']:>6} {row['p50']:>8.2f} {row['p99']:>8.2f} {row['max']:>8.1f} "
            f"{rate}"
        )


if __name__ == "__main__":
    main()
