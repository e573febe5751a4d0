"""Production settings that must not depend on a request: public URL, cookies, HSTS; which
forwarded headers are believed; and what `prefill check --deploy` refuses."""

from __future__ import annotations

import secrets

import pytest
from starlette.testclient import TestClient

from app.deploy_check import check_settings
from app.settings import Settings
from app.web.client_address import forwarded_client, parse_networks
from tests.conftest import make_settings
from tests.helpers import login, signup, unique_email

PUBLIC = "https://prefill.example"


def errors(settings: Settings) -> list[str]:
    return [f.message for f in check_settings(settings, workers=1) if f.level == "error"]


def production(tmp_path, **overrides: object) -> Settings:  # type: ignore[no-untyped-def]
    values: dict[str, object] = {
        "env": "production",
        "secret_key": secrets.token_urlsafe(48),
        "public_url": PUBLIC,
        "mailer": "smtp",
        "rate_limits": True,  # the test default turns them off; production keeps them on
        **overrides,
    }
    return make_settings("postgresql://db.internal/prefill", tmp_path, **values)


def test_production_refuses_to_start_without_a_public_url(app_factory, sqlite_url: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RuntimeError, match="PREFILL_PUBLIC_URL"):
        app_factory(sqlite_url, env="production", public_url="")
    with pytest.raises(RuntimeError, match="user name"):
        app_factory(sqlite_url, env="production", public_url="https://me:pw@prefill.example")


def test_production_links_ignore_the_host_header_and_healthz_answers_any(
    app_factory, sqlite_url: str
) -> None:  # type: ignore[no-untyped-def]
    app = app_factory(sqlite_url, env="production", public_url=PUBLIC)
    with TestClient(app, base_url="https://evil.example") as client:
        page = client.get("/")
        assert page.status_code == 200
        assert f'<link rel="canonical" href="{PUBLIC}/"' in page.text
        assert "evil.example" not in page.text
        health = client.get("/healthz", headers={"host": "10.0.0.7:8000"})
        assert health.status_code == 200 and health.json()["status"] == "ok"


# A fixed strong secret: parameters must be the same in every test process (pytest-xdist).
STRONG = "q9V2mZ7xR4tL8wK1nB6cJ3hF0sD5gA-yE_uP2oI7rT4eW9zX1vC8bN3mQ6kL0jH5"


@pytest.mark.parametrize(
    ("secret", "problem"),
    [
        (STRONG + "\n", "whitespace"),
        (" " + STRONG, "whitespace"),
        ("a" * 64, "low in entropy"),
        ("changethis" * 4, "low in entropy"),
        ("abcdefghijklmnopqrstuvwxyz0123456789", "low in entropy"),
        ("short", "too short"),
    ],
)
def test_check_deploy_rejects_weak_secrets(tmp_path, secret: str, problem: str) -> None:  # type: ignore[no-untyped-def]
    found = errors(production(tmp_path, secret_key=secret))
    assert any("PREFILL_SECRET_KEY" in e and problem in e for e in found), found


def test_check_deploy_accepts_a_generated_secret(tmp_path) -> None:  # type: ignore[no-untyped-def]
    assert errors(production(tmp_path)) == []
    assert errors(production(tmp_path, secret_key=secrets.token_hex(16))) == []


@pytest.mark.parametrize(
    "url",
    [
        "http://prefill.example",
        "https://user:pw@prefill.example",
        "https://user@prefill.example",
        "https://prefill.example/app",
        "https://prefill.example?x=1",
        "https://prefill.example#top",
        "https://pre fill.example",
        "https://prefill_example.com",
        "https://prefill.example\u202e",
        "https://exa$mple.com",
        "",
    ],
)
def test_check_deploy_rejects_odd_public_urls(tmp_path, url: str) -> None:  # type: ignore[no-untyped-def]
    found = errors(production(tmp_path, public_url=url))
    assert any("PREFILL_PUBLIC_URL" in e for e in found), found


def test_check_deploy_rejects_any_proxy(tmp_path) -> None:  # type: ignore[no-untyped-def]
    assert any("'*'" in e for e in errors(production(tmp_path, forwarded_allow_ips="*")))
    assert any(
        "FORWARDED" in e for e in errors(production(tmp_path, forwarded_allow_ips="proxy-1"))
    )
    assert errors(production(tmp_path, forwarded_allow_ips="10.0.0.5, 10.1.0.0/16")) == []


# --- forwarded headers ---------------------------------------------------------------------------


def test_no_proxy_is_trusted_by_default_not_even_loopback() -> None:
    assert Settings.model_validate({}).forwarded_allow_ips == ""
    assert forwarded_client("127.0.0.1", "198.51.100.7", parse_networks("")) is None


def test_forwarded_for_is_read_from_the_right_and_parsed() -> None:
    proxies = parse_networks("10.0.0.0/8")
    assert forwarded_client("10.0.0.5", "198.51.100.7", proxies) == "198.51.100.7"
    # A client's own X-Forwarded-For lands on the left: the proxy's entry wins.
    assert forwarded_client("10.0.0.5", "1.2.3.4, 198.51.100.7", proxies) == "198.51.100.7"
    assert forwarded_client("10.0.0.5", "198.51.100.7, 10.0.0.9", proxies) == "198.51.100.7"
    assert forwarded_client("10.0.0.5", "not an address", proxies) is None
    assert forwarded_client("10.0.0.5", "a" * 190, proxies) is None
    assert forwarded_client("203.0.113.1", "198.51.100.7", proxies) is None  # not our proxy


def test_rate_limits_key_on_the_address_a_trusted_proxy_reports(
    app_factory, sqlite_url: str
) -> None:  # type: ignore[no-untyped-def]
    app = app_factory(sqlite_url, forwarded_allow_ips="10.0.0.5")
    email = unique_email()
    signup(TestClient(app), email=email)
    proxy = TestClient(app, client=("10.0.0.5", 40000))
    for number in range(8):  # junk in the header never becomes a key of its own
        spoofed = {"x-forwarded-for": f"fake-{number}, 198.51.100.7"}
        proxy.headers.update(spoofed)
        assert login(proxy, email, "wrong password here").status_code == 422
    assert login(proxy, email).status_code == 429  # one client: 198.51.100.7
    proxy.headers.update({"x-forwarded-for": "198.51.100.8"})
    assert login(proxy, email).status_code == 303  # another client behind the same proxy
    # Not a configured proxy: its header is ignored and its own address is the key.
    direct = TestClient(app, client=("127.0.0.1", 40001), headers={"x-forwarded-for": "1.1.1.1"})
    assert login(direct, email).status_code == 303
    account = direct.get("/account").text
    assert "127.0.0.1" in account and "1.1.1.1" not in account
