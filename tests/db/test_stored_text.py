"""Text is stored alike on both backends: PostgreSQL refuses a NUL character where SQLite keeps
it, so every bound string loses its NULs; a value the database still refuses is the request's
fault (422), not an outage (503)."""

from __future__ import annotations

from fastapi import FastAPI
from sqlalchemy import select
from sqlalchemy.exc import DataError
from starlette.testclient import TestClient

from app.db.models.discussion import Post
from tests.helpers import post_comment, signup


def test_a_nul_in_a_post_is_dropped_and_the_post_saved(app, client: TestClient) -> None:  # type: ignore[no-untyped-def]
    signup(client)
    posted = post_comment(client, "/questions/kv-bound-deployment", "before\x00after")
    assert posted.status_code == 303
    with app.state.db.reader() as db:
        assert db.scalars(select(Post.body_markdown)).one() == "beforeafter"


def test_a_value_the_database_refuses_is_a_422(app: FastAPI) -> None:
    def refuse() -> None:
        raise DataError("INSERT …", {}, ValueError("value out of range"))

    app.add_api_route("/test-refused-value", refuse, methods=["GET"])
    with TestClient(app) as client:
        response = client.get("/test-refused-value", headers={"accept": "application/json"})
    assert response.status_code == 422 and "nothing was saved" in response.json()["detail"]
