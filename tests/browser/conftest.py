"""Browser tests: the real app served by uvicorn on a free port, driven by headless Chromium.

Chromium comes from Debian (/usr/bin/chromium); Playwright never downloads a browser here. Every
test fails on any console error or uncaught page error.
"""

from __future__ import annotations

import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn

from app.main import create_app
from tests.conftest import make_settings

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]

pytestmark = pytest.mark.browser


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if CHROMIUM.exists():
        return
    skip = pytest.mark.skip(reason="Browser leg skipped: /usr/bin/chromium is not installed")
    for item in items:
        if "browser" in item.keywords:
            item.add_marker(skip)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LiveServer:
    def __init__(self, app, port: int) -> None:  # type: ignore[no-untyped-def]
        self.app = app
        self.url = f"http://127.0.0.1:{port}"
        config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def start(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the live server did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture(scope="session")
def live_server(
    tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path, content_store
) -> Iterator[LiveServer]:  # type: ignore[no-untyped-def]
    directory = tmp_path_factory.mktemp("live")
    database = directory / "prefill.db"
    shutil.copyfile(sqlite_template, database)
    # Loopback is a trusted proxy here, so a test can sign up from an address of its own
    # (X-Forwarded-For) instead of spending the one browser's sign-up limit.
    settings = make_settings(
        f"sqlite:///{database}", directory, public_url="", forwarded_allow_ips="127.0.0.1"
    )
    server = LiveServer(create_app(settings, content=content_store), _free_port())
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield instance
        instance.close()


class ConsoleErrors(list[str]):
    def check(self) -> None:
        assert not self, f"console errors: {list(self)}"


@pytest.fixture
def page(browser, live_server: LiveServer) -> Iterator[object]:  # type: ignore[no-untyped-def]
    """A fresh browser context (no cookies); fails the test on any console or page error."""
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    errors = ConsoleErrors()
    tab.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.console_errors = errors  # type: ignore[attr-defined]
    yield tab
    context.close()
    errors.check()
