"""Reset links: bound to the address they were sent to, retired by any credential change, and
usable exactly once even when two requests race with the same link."""

from __future__ import annotations

import threading

from sqlalchemy import create_engine, select, update
from starlette.testclient import TestClient

from app.accounts.sessions import token_hash
from app.db.base import utcnow
from app.db.engine import normalise_url
from app.db.models.accounts import EmailToken
from tests.accounts.test_recovery import NEW_PASSWORD, link_in, request_reset
from tests.helpers import PASSWORD, csrf_token, login, post_form, sent_mail, signup, unique_email


def reset_link(client: TestClient, email: str) -> str:
    request_reset(client, email)
    return link_in(sent_mail(client.app)[-1].text, "/reset")


def use(client: TestClient, link: str, password: str = NEW_PASSWORD):  # type: ignore[no-untyped-def]
    token = csrf_token(client, "/forgot")
    return client.post(
        link, data={"password": password, "csrf_token": token}, follow_redirects=False
    )


def test_a_password_change_retires_reset_links(client: TestClient) -> None:
    email = unique_email()
    signup(client, email=email)
    link = reset_link(TestClient(client.app), email)
    changed = post_form(
        client,
        "/account/password",
        {"current_password": PASSWORD, "new_password": "my own new passphrase"},
    )
    assert changed.status_code == 303
    assert client.get(link).status_code == 410
    assert use(TestClient(client.app), link).status_code == 410
    assert login(TestClient(client.app), email, NEW_PASSWORD).status_code == 422


def test_an_email_change_retires_reset_links_sent_to_the_old_address(client: TestClient) -> None:
    email = unique_email()
    signup(client, email=email)
    link = reset_link(TestClient(client.app), email)  # someone else reads the old inbox
    moved = post_form(
        client, "/account/email", {"email": unique_email("moved"), "current_password": PASSWORD}
    )
    assert moved.status_code == 303
    assert use(TestClient(client.app), link).status_code == 410


def test_a_reset_link_only_works_for_the_address_it_was_sent_to(app, client: TestClient) -> None:  # type: ignore[no-untyped-def]
    """Even if a token escaped retirement, it is bound to its address."""
    email = unique_email()
    signup(client, email=email)
    link = reset_link(TestClient(client.app), email)
    moved = post_form(
        client, "/account/email", {"email": unique_email("moved"), "current_password": PASSWORD}
    )
    assert moved.status_code == 303
    with app.state.db.writer() as db, db.begin():  # undo the retirement: only the binding is left
        db.execute(update(EmailToken).where(EmailToken.purpose == "reset").values(used_at=None))
    assert use(TestClient(client.app), link).status_code == 410


def test_a_failed_reset_leaves_the_link_usable(client: TestClient) -> None:
    email = unique_email()
    signup(TestClient(client.app), email=email)
    link = reset_link(client, email)
    assert use(client, link, "short").status_code == 422
    assert use(client, link).status_code == 303


def test_two_requests_racing_with_one_link_change_the_password_once(app, database_url: str) -> None:  # type: ignore[no-untyped-def]
    """The second use waits on the first's row lock, finds the token used, and changes nothing:
    the request that answers 410 must not have set its password."""
    email = unique_email()
    signup(TestClient(app), email=email)
    link = reset_link(TestClient(app), email)
    raw = link.rsplit("/", 1)[1]
    # Another connection uses the link first and holds its transaction open.
    engine = create_engine(normalise_url(database_url))
    first = engine.connect()
    transaction = first.begin()
    if first.dialect.name == "sqlite":
        first.exec_driver_sql("SELECT 1")  # BEGIN is deferred; take the write lock as a writer
    used = first.execute(
        update(EmailToken)
        .where(EmailToken.token_hash == token_hash(raw), EmailToken.used_at.is_(None))
        .values(used_at=utcnow())
    )
    assert used.rowcount == 1
    second = TestClient(app)
    token = csrf_token(second, "/forgot")
    answer: dict[str, int] = {}

    def race() -> None:
        response = second.post(
            link,
            data={"password": "the racing passphrase", "csrf_token": token},
            follow_redirects=False,
        )
        answer["status"] = response.status_code

    thread = threading.Thread(target=race)
    thread.start()
    thread.join(1.5)  # it is blocked on the first connection's lock (or done, wrongly)
    transaction.commit()
    first.close()
    thread.join(30)
    engine.dispose()
    assert answer["status"] == 410
    assert login(TestClient(app), email, "the racing passphrase").status_code == 422
    assert login(TestClient(app), email, PASSWORD).status_code == 303
    with app.state.db.reader() as db:
        assert db.scalar(select(EmailToken.used_at).where(EmailToken.token_hash == token_hash(raw)))


def test_a_new_request_keeps_the_newest_two_links(client: TestClient) -> None:
    """Anyone can ask for a reset of any address; that must not cancel the link its owner is
    about to open. The newest two stay valid; using one (a password change) retires them all."""
    email = unique_email()
    signup(TestClient(client.app), email=email)
    owners = reset_link(TestClient(client.app), email)
    strangers = reset_link(TestClient(client.app), email)
    assert client.get(owners).status_code == 200  # still good after someone else's request
    assert client.get(strangers).status_code == 200
    third = reset_link(TestClient(client.app), email)
    assert client.get(owners).status_code == 410  # only the newest two are kept
    assert client.get(strangers).status_code == 200
    assert use(TestClient(client.app), third).status_code == 303
    assert client.get(strangers).status_code == 410  # the change retired the other one
    assert use(TestClient(client.app), strangers).status_code == 410
