"""Start-up: seconds from launching `prefill serve` until /healthz answers 200, and peak memory.

Measured in one run on one machine, so the ratios hold whatever the machine:
  shipped content, warm     the baseline: content/ as committed, render cache current
  1,000 questions, cold     the shipped pages copied under new slugs, no render cache
  1,000 questions, warm     the same content started again (content unchanged since the last start)

Target (issue "Speed v2"): the 1,000-question warm start within 1.5x of the shipped content's warm
start; as guidance < 2 s warm, < 6 s cold, < 150 MiB.

    .venv/bin/python bench/bench_startup.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.db.migrate import upgrade  # noqa: E402

SECRET = "bench-" + "x" * 40


def many_questions(target: Path, count: int) -> Path:
    """content/ plus copies of its questions under new slugs, up to `count` questions."""
    shutil.copytree(ROOT / "content", target)
    sources = sorted((target / "questions").glob("*.md"))
    for n in range(count - len(sources)):
        source = sources[n % len(sources)]
        slug = f"{source.stem}-copy-{n}"
        text = source.read_text().replace(f"slug: {source.stem}\n", f"slug: {slug}\n", 1)
        text = re.sub(r"\naliases: \[[^\]]*\]", "\naliases: []", text)
        (target / "questions" / f"{slug}.md").write_text(text)
    return target


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def start(content: Path, database: Path, cache: Path) -> tuple[float, float]:
    """Launch a server; return (seconds until /healthz is 200, peak RSS in MiB)."""
    port = free_port()
    env = os.environ | {
        "DATABASE_URL": f"sqlite:///{database}",
        "PREFILL_CONTENT_DIR": str(content),
        "PREFILL_RENDER_CACHE": str(cache),
        "PREFILL_SECRET_KEY": SECRET,
        "PREFILL_ENV": "production",
        "PREFILL_PUBLIC_URL": "https://prefill.example",  # production needs an https origin
    }
    began = time.perf_counter()
    server = subprocess.Popen(
        [str(ROOT / ".venv/bin/prefill"), "serve", "--port", str(port), "--log-level", "warning"],
        env=env,
        cwd=ROOT,
    )
    try:
        while True:
            if server.poll() is not None:
                raise SystemExit(f"the server exited with {server.returncode}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as r:
                    if r.status == 200:
                        return time.perf_counter() - began, peak_rss_mib(server.pid)
            except OSError:
                time.sleep(0.02)
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3, help="starts per case (median shown)")
    parser.add_argument("--questions", type=int, default=1000)
    args = parser.parse_args()
    report(args.repeat, args.questions)


def report(repeat: int, questions: int) -> None:
    """Measure the three starts and print them with the target."""
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        shipped, big = ROOT / "content", many_questions(work / "content", questions)
        database = work / "startup.db"
        upgrade(f"sqlite:///{database}")
        rows: list[tuple[str, float, float]] = []

        def measure(label: str, content: Path, cache: Path, *, cold: bool) -> float:
            runs = []
            for _ in range(repeat):
                if cold:
                    cache.unlink(missing_ok=True)
                runs.append(start(content, database, cache))
            seconds = statistics.median(run[0] for run in runs)
            rows.append((label, seconds, max(run[1] for run in runs)))
            return seconds

        start(shipped, database, work / "shipped.json")  # write its cache and search index
        baseline = measure("shipped content, warm", shipped, work / "shipped.json", cold=False)
        measure(f"{questions:,} questions, cold", big, work / "big.json", cold=True)
        warm = measure(f"{questions:,} questions, warm", big, work / "big.json", cold=False)
    print(f"{'start':<28} {'ready (s)':>10} {'ratio':>7} {'peak RSS':>10}")
    for label, seconds, mib in rows:
        print(f"{label:<28} {seconds:>10.2f} {seconds / baseline:>6.2f}x {mib:>7.0f} MiB")
    verdict = "met" if warm <= 1.5 * baseline else "NOT met"
    print(
        f"\ntarget: warm start with {questions:,} questions ≤ 1.5x the shipped warm start: {verdict}"
    )


if __name__ == "__main__":
    main()
