"""Password-guessing limits hold under parallel requests: an attempt is counted before its
password is checked, so a burst sent at once verifies no more passwords than the limit allows.
PostgreSQL only for the bursts (SQLite runs one writer at a time behind the write gate); the
one-at-a-time behaviour, a success costing nothing, runs on both."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from starlette.testclient import TestClient

from app.accounts import limits
from app.accounts import service as accounts_service
from tests.helpers import PASSWORD, csrf_token, login, post_form, signup, unique_email

WRONG = "wrong password here"


class Verifications:
    """Counts the password verifications (argon2 runs) the app performs, and their outcomes."""

    def __init__(self) -> None:
        self.outcomes: Counter[bool] = Counter()
        self._lock = threading.Lock()

    def wrap(self, verify: Callable[[str | None, str], bool]) -> Callable[[str | None, str], bool]:
        def counted(password_hash: str | None, password: str) -> bool:
            result = verify(password_hash, password)
            with self._lock:
                self.outcomes[result] += 1
            return result

        return counted


@pytest.fixture
def verifications(monkeypatch: pytest.MonkeyPatch) -> Iterator[Verifications]:
    counter = Verifications()
    monkeypatch.setattr(
        accounts_service, "verify_password", counter.wrap(accounts_service.verify_password)
    )
    yield counter


def postgres_only(database_url: str) -> None:
    if not database_url.startswith("postgresql"):
        pytest.skip("SQLite serialises writing requests behind the write gate: no race to test")


def browser(app, address: str) -> TestClient:  # type: ignore[no-untyped-def]
    return TestClient(app, base_url="http://testserver", client=(address, 50000))


def burst(requests: list[Callable[[], int]], threads: int = 30) -> list[int]:
    """Run the requests at once, `threads` at a time, released together by a barrier (a few
    dozen connections: the test server is shared); their status codes."""
    threads = min(threads, len(requests))
    barrier = threading.Barrier(threads)
    with ThreadPoolExecutor(max_workers=threads, initializer=barrier.wait) as pool:
        return list(pool.map(lambda request: request(), requests))


def sign_in_request(client: TestClient, email: str, password: str) -> Callable[[], int]:
    token = csrf_token(client, "/login")  # fetched beforehand: the burst is the POSTs alone
    data = {"email": email, "password": password, "next": "/", "csrf_token": token}
    return lambda: client.post("/login", data=data, follow_redirects=False).status_code


def test_parallel_wrong_guesses_verify_no_more_than_the_limit(
    app, database_url: str, verifications: Verifications
) -> None:  # type: ignore[no-untyped-def]
    postgres_only(database_url)
    email = unique_email()
    assert signup(browser(app, "198.51.100.1"), email=email).status_code == 303
    guesses = 3 * limits.LOGIN_FAILURES_PER_CLIENT.max_hits
    attackers = [browser(app, "203.0.113.9") for _ in range(guesses)]  # one client, many sockets
    statuses = burst([sign_in_request(client, email, WRONG) for client in attackers])
    allowed = limits.LOGIN_FAILURES_PER_CLIENT.max_hits
    assert Counter(statuses) == {422: allowed, 429: guesses - allowed}, statuses
    assert verifications.outcomes == {False: allowed}
    # The right password now waits too: its client has spent its tries.
    assert login(attackers[0], email).status_code == 429
    assert verifications.outcomes == {False: allowed}


def test_the_right_password_inside_a_burst_is_not_a_free_try(
    app, database_url: str, verifications: Verifications
) -> None:  # type: ignore[no-untyped-def]
    """The assessment's burst: 24 wrong guesses and the password, all at once, from one client.
    The password can only get in if it was among the first tries; never after eight failures."""
    postgres_only(database_url)
    email = unique_email()
    assert signup(browser(app, "198.51.100.1"), email=email).status_code == 303
    limit = limits.LOGIN_FAILURES_PER_CLIENT.max_hits
    clients = [browser(app, "203.0.113.9") for _ in range(25)]
    requests = [sign_in_request(client, email, WRONG) for client in clients[:24]]
    requests.insert(12, sign_in_request(clients[24], email, PASSWORD))
    statuses = Counter(burst(requests))
    assert statuses[422] == limit and statuses[422] + statuses[429] + statuses[303] == 25
    assert verifications.outcomes[False] == limit
    # The password was checked (and signed in) only if it came before the limit was reached.
    assert verifications.outcomes[True] == statuses[303] <= 1


def test_parallel_guesses_from_many_clients_stop_at_the_account_ceiling(
    app, database_url: str, verifications: Verifications
) -> None:  # type: ignore[no-untyped-def]
    postgres_only(database_url)
    email = unique_email()
    owner = browser(app, "198.51.100.1")
    assert signup(owner, email=email).status_code == 303  # this browser is a known device
    assert post_form(owner, "/logout", {}, page="/account").status_code == 303
    per_client = limits.LOGIN_FAILURES_PER_CLIENT.max_hits - 2  # no client reaches its own limit
    ceiling = limits.LOGIN_FAILURES_PER_ACCOUNT.max_hits
    clients = [
        browser(app, f"203.0.113.{n // per_client + 1}") for n in range(ceiling + 2 * per_client)
    ]
    statuses = Counter(burst([sign_in_request(client, email, WRONG) for client in clients]))
    assert statuses == {422: ceiling, 429: len(clients) - ceiling}, statuses
    assert verifications.outcomes == {False: ceiling}
    assert login(browser(app, "192.0.2.200"), email).status_code == 429  # a new browser waits
    assert login(owner, email).status_code == 303  # the owner's own browser gets through


def test_parallel_wrong_current_passwords_verify_no_more_than_the_limit(
    app, database_url: str, verifications: Verifications
) -> None:  # type: ignore[no-untyped-def]
    postgres_only(database_url)
    member = browser(app, "198.51.100.1")
    assert signup(member, email=unique_email()).status_code == 303
    token = csrf_token(member, "/account")
    tries = 20
    baseline = sum(verifications.outcomes.values())  # signing up verifies nothing; be sure

    def attempt(path: str, extra: dict[str, str]) -> Callable[[], int]:
        data = {"current_password": WRONG, "csrf_token": token, **extra}
        return lambda: member.post(path, data=data, follow_redirects=False).status_code

    forms = [
        ("/account/delete", {"confirmation": "delete my account"}),
        ("/account/password", {"new_password": "another long passphrase"}),
        ("/account/email", {"email": unique_email("moved")}),
    ]
    statuses = Counter(burst([attempt(*forms[n % 3]) for n in range(tries)]))
    allowed = limits.PASSWORD_CHECK_PER_CLIENT.max_hits
    assert statuses == {422: allowed, 429: tries - allowed}, statuses
    assert sum(verifications.outcomes.values()) - baseline == allowed
    right = {"current_password": PASSWORD, "new_password": "another long passphrase"}
    assert post_form(member, "/account/password", right).status_code == 429


def test_a_right_password_costs_no_try(app) -> None:  # type: ignore[no-untyped-def]
    """One at a time: a success is taken back off the failure count, on both databases."""
    email = unique_email()
    owner = browser(app, "198.51.100.1")
    assert signup(owner, email=email).status_code == 303
    limit = limits.LOGIN_FAILURES_PER_CLIENT.max_hits
    other = browser(app, "203.0.113.9")
    for _ in range(limit - 1):
        assert login(other, email, WRONG).status_code == 422
    assert login(other, email).status_code == 303  # the right one: not a failure
    assert post_form(other, "/logout", {}, page="/account").status_code == 303
    assert login(other, email, WRONG).status_code == 422  # the eighth failure is still allowed
    assert login(other, email).status_code == 429  # and then this client waits

    checks = limits.PASSWORD_CHECK_PER_CLIENT.max_hits
    wrong = {"current_password": WRONG, "confirmation": "delete my account"}
    for _ in range(checks - 1):
        assert post_form(owner, "/account/delete", wrong).status_code == 422
    moved = {"current_password": PASSWORD, "new_password": "another long passphrase"}
    assert post_form(owner, "/account/password", moved).status_code == 303  # costs nothing
    assert post_form(owner, "/account/delete", wrong).status_code == 422  # the fifth
    refused = post_form(owner, "/account/delete", wrong)
    assert refused.status_code == 429 and "wrong current passwords" in refused.text
