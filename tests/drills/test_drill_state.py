"""A member's cached pages move when a drill is answered (the dashboard shows drill reviews due)."""

from __future__ import annotations

from starlette.testclient import TestClient

from tests.helpers import csrf_token, signup


def test_answering_a_drill_changes_the_members_cached_home(client: TestClient) -> None:
    signup(client)
    first = client.get("/")
    assert first.status_code == 200
    etag = first.headers["etag"]
    assert client.get("/", headers={"if-none-match": etag}).status_code == 304
    token = csrf_token(client, "/drills/kv-bytes-per-token?seed=7")
    answered = client.post(
        "/drills/kv-bytes-per-token/answer",
        data={"seed": "7", "answer": "1 B", "csrf_token": token},
    )
    assert answered.status_code == 200
    assert client.get("/", headers={"if-none-match": etag}).status_code == 200
