"""The SQLite write gate holds only requests that may write: the endpoints that compute for
seconds and store nothing (the planner's search above all) run beside it, or one visitor's
search would hold every sign-in and post on the site."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest

from app.db.session import READ_ONLY_FLAG
from app.db.write_gate import write_gate_middleware


class _Gate:
    enabled = True

    def __init__(self) -> None:
        self.held = asyncio.Semaphore(0)  # held by someone else for as long as the test runs

    def semaphore(self) -> asyncio.Semaphore:
        return self.held


def _run(path: str) -> dict:  # type: ignore[type-arg]
    """In a thread of its own: a browser test earlier in the worker may leave a loop running."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, _call(path)).result()


async def _call(path: str) -> dict:  # type: ignore[type-arg]
    seen: dict = {}  # type: ignore[type-arg]

    async def app(scope, receive, send) -> None:  # type: ignore[no-untyped-def]
        seen["read_only"] = scope.get("state", {}).get(READ_ONLY_FLAG, False)

    middleware = write_gate_middleware(_Gate())(app)
    scope = {"type": "http", "method": "POST", "path": path}
    await asyncio.wait_for(middleware(scope, None, None), timeout=1)  # type: ignore[arg-type]
    return seen


@pytest.mark.parametrize(
    "path",
    ["/api/v1/plan", "/planner", "/api/v1/sizing", "/calculator", "/api/v1/questions/x/check"],
)
def test_computing_endpoints_pass_a_held_gate_with_a_read_only_session(path: str) -> None:
    assert _run(path) == {"read_only": True}


@pytest.mark.parametrize("path", ["/login", "/calculator/share", "/questions/x/comments"])
def test_requests_that_may_write_wait_for_the_gate(path: str) -> None:
    with pytest.raises(TimeoutError):
        _run(path)
