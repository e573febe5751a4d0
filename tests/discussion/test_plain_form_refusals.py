"""Without JavaScript a refused post comes back in its composer with the text kept — over the
length limit or over the posting rate — never as a bare error page that loses it."""

from __future__ import annotations

import html

from starlette.testclient import TestClient

from app.discussion import limits
from tests.helpers import post_comment, post_id_from, signup

PAGE = "/questions/kv-bound-deployment"


def _kept(response, body: str) -> bool:  # type: ignore[no-untyped-def]
    text = html.unescape(response.text)
    return f">{body}</textarea>" in text and 'id="composer-error"' in text


def test_an_over_long_post_comes_back_with_its_text(client: TestClient) -> None:
    signup(client)
    body = "A" * 10_001
    refused = post_comment(client, PAGE, body)
    assert refused.status_code == 422 and _kept(refused, body)
    assert "Posts are limited to 10,000 characters" in refused.text


def test_a_reply_over_the_posting_rate_comes_back_with_its_text_and_parent(
    app_factory, database_url: str
) -> None:  # type: ignore[no-untyped-def]
    with TestClient(app_factory(database_url, rate_limits=True)) as client:
        signup(client)
        parent = post_id_from(post_comment(client, PAGE, "The first approach."))
        for n in range(limits.POSTS_PER_ACCOUNT.max_hits - 1):
            assert post_comment(client, PAGE, f"Reply {n}.", parent_id=parent).status_code == 303
        body = "One reply too many, kept."
        refused = post_comment(client, PAGE, body, parent_id=parent)
        assert refused.status_code == 429 and refused.headers["retry-after"]
        assert _kept(refused, body) and f'name="parent_id" value="{parent}"' in refused.text
        # With JavaScript the composer keeps the text itself; the refusal stays a short message.
        fragment = post_comment(client, PAGE, body, htmx=True)
        assert fragment.status_code == 429 and "</textarea>" not in fragment.text
