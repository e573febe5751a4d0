"""POST /api/v1/questions/{slug}/check: the numbers check of the question page, as JSON."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from tests.helpers import signup

FLAGSHIP = "kv-bound-deployment"
LOCKED = "concurrent-sessions-on-8xh200"


def check(client: TestClient, text: str, slug: str = FLAGSHIP):  # type: ignore[no-untyped-def]
    return client.post(f"/api/v1/questions/{slug}/check", json={"text": text})


@pytest.mark.parametrize(
    ("text", "verdict", "mistake"),
    [
        ("The cache costs 320 KiB per token.", "correct", None),
        ("I get 160 KiB per token.", "wrong", "forgot-k-and-v"),
        ("That makes 2.5 MiB per token.", "wrong", "attention-heads"),
    ],
)
def test_the_flagship_examples(sqlite_client: TestClient, text: str, verdict: str, mistake) -> None:  # type: ignore[no-untyped-def]
    response = check(sqlite_client, text)  # no CSRF token: it stores and changes nothing
    assert response.status_code == 200
    body = response.json()
    (number,) = body["numbers"]
    assert (number["figure"], number["verdict"]) == ("kv-per-token", verdict)
    assert (number["mistake"] or {}).get("id") == mistake
    if mistake:
        assert number["mistake"]["name"] in number["message"]
        assert number["text"] in number["message"]
    assert "kv-per-token" not in body["not_stated"] and len(body["not_stated"]) == 4
    assert "numbers" in body["reads"] and body["note"] is None
    assert response.headers["cache-control"] == "private, no-store"


def test_access_follows_the_answer(sqlite_client: TestClient) -> None:
    assert check(sqlite_client, "85 sessions", LOCKED).status_code == 401
    signup(sqlite_client)
    member = check(sqlite_client, "four TP2 replicas hold 46 sessions", LOCKED)
    assert member.status_code == 200
    (number,) = member.json()["numbers"]
    assert number["figure"] == "sessions-4x-tp2" and number["mistake"]["id"] == "pooled-replicas"


def test_bad_requests_are_clear(sqlite_client: TestClient) -> None:
    assert check(sqlite_client, "x" * 20_001).status_code == 422
    assert sqlite_client.post(f"/api/v1/questions/{FLAGSHIP}/check", json={}).status_code == 422
    extra = sqlite_client.post(
        f"/api/v1/questions/{FLAGSHIP}/check", json={"text": "1 GiB", "also": 1}
    )
    assert extra.status_code == 422
    assert check(sqlite_client, "1 GiB", "no-such-question").status_code == 404
    big = sqlite_client.post(
        f"/api/v1/questions/{FLAGSHIP}/check",
        content=b'{"text": "' + b"a" * (200 * 1024) + b'"}',
        headers={"content-type": "application/json"},
    )
    assert big.status_code == 413


def test_a_question_without_key_figures_says_so(sqlite_client: TestClient, content_store) -> None:  # type: ignore[no-untyped-def]
    bare = next(q for q in content_store.questions if q.is_free and not q.practice.checks)
    body = check(sqlite_client, "320 KiB per token", bare.slug).json()
    assert body["figures"] == [] and body["note"]
    assert body["numbers"][0]["verdict"] is None


def test_it_is_documented(sqlite_client: TestClient) -> None:
    spec = sqlite_client.get("/openapi.json").json()
    operation = spec["paths"]["/api/v1/questions/{slug}/check"]["post"]
    assert "classic" in operation["description"] and "401" in operation["responses"]
    detail = spec["components"]["schemas"]["QuestionDetail"]["properties"]
    assert "practice" in detail


def test_question_detail_carries_the_practice_fields(sqlite_client: TestClient) -> None:
    body = sqlite_client.get(f"/api/v1/questions/{FLAGSHIP}").json()
    practice = body["practice"]
    assert len(practice["hints_html"]) == 3 and set(practice["examples_html"]) == {
        "mid",
        "senior",
        "staff",
    }
    assert practice["checks"][0] == {
        "id": "kv-per-token",
        "label": "KV cache per token, Llama 3.1 70B, bf16",
        "kind": "bytes",
        "value": 327680.0,
        "shown": "320 KiB",
        "tolerance": None,
    }


def test_a_number_past_any_napkin_is_not_read(sqlite_client: TestClient) -> None:
    """An exponent beyond ±30 is refused as a drill answer's is: no float overflow, and no
    seconds of big-integer arithmetic for "1e9999999"."""
    for text in ("1e309 tokens", "1e9999999 tokens", "4e-400 s"):
        response = check(sqlite_client, text)
        assert response.status_code == 200 and response.json()["numbers"] == [], text
