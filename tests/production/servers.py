"""Run the real app as separate uvicorn processes, as production does."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx2

from app.settings import PROJECT_ROOT

SECRET = "multi-process-test-secret-key-0123456789abcdef"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class AppProcess:
    def __init__(self, database_url: str, workdir: Path, *, port: int | None = None) -> None:
        self.database_url = database_url
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.workdir = workdir
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 60) -> AppProcess:
        env = os.environ | {
            "DATABASE_URL": self.database_url,
            "PREFILL_SECRET_KEY": SECRET,
            "PREFILL_ENV": "test",
            "PREFILL_MAILER": "outbox",
            "PREFILL_OUTBOX_DIR": str(self.workdir / "outbox"),
            "PREFILL_PUBLIC_URL": "",
        }
        self.log_path = self.workdir / f"server-{self.port}.log"
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "uvicorn", "app.main:create_app", "--factory",
                 "--host", "127.0.0.1", "--port", str(self.port), "--log-level", "warning"],
                cwd=PROJECT_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited: {self.log_path.read_text()[-2000:]}")
            try:
                if httpx2.get(self.url + "/healthz", timeout=1).status_code == 200:
                    return self
            except httpx2.TransportError:
                pass
            time.sleep(0.2)
        raise RuntimeError("server did not become healthy")

    def kill(self) -> None:
        """SIGKILL: no shutdown hooks, no flushing — a crash."""
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()
