"""Each drill skill has one discussion thread, shown under every drill of that skill."""

from __future__ import annotations

from starlette.testclient import TestClient

from app.drills import SKILLS
from tests.helpers import csrf_token, post_comment, post_id_from, signup

SKILL = next(iter(SKILLS))
DRILL = f"/drills/{SKILL}?seed=7"


def test_a_post_from_a_drill_appears_under_every_seed_of_its_skill(client: TestClient) -> None:
    signup(client, name="Driller")
    token = csrf_token(client, DRILL)
    posted = client.post(
        f"/drills/{SKILL}/comments",
        data={"body": "I multiply layers by KV heads first", "csrf_token": token},
        follow_redirects=False,
    )
    assert posted.status_code == 303
    # Without JavaScript the post lands on the thread's own page (a drill page needs a seed).
    assert posted.headers["location"].startswith(f"/drills/{SKILL}/comments?sort=new#post-")
    post_id = post_id_from(posted)
    thread = client.get(posted.headers["location"])
    assert thread.status_code == 200 and "I multiply layers by KV heads first" in thread.text
    other_seed = client.get(f"/drills/{SKILL}?seed=12345")
    assert f'id="post-{post_id}"' in other_seed.text
    assert "Discussion · 1" in other_seed.text


def test_htmx_post_swaps_the_thread_in_place(client: TestClient) -> None:
    signup(client, name="Swapper")
    response = post_comment(client, f"/drills/{SKILL}", "Swapped in place", htmx=True)
    assert response.status_code == 200
    assert 'id="discussion"' in response.text and "Swapped in place" in response.text


def test_visitors_read_the_thread_and_sign_in_returns_to_the_same_drill(
    client: TestClient,
) -> None:
    page = client.get(DRILL)
    assert page.status_code == 200
    assert 'id="discussion-heading"' in page.text
    assert f"/login?next=/drills/{SKILL}%3Fseed%3D7%23discussion-heading" in page.text
    refused = client.post(
        f"/drills/{SKILL}/comments", data={"body": "anonymous"}, follow_redirects=False
    )
    assert refused.status_code in (303, 401, 403)


def test_unknown_skill_threads_are_404(client: TestClient) -> None:
    assert client.get("/drills/no-such-skill/comments").status_code == 404
    signup(client, name="Lost")
    token = csrf_token(client, DRILL)
    response = client.post(
        "/drills/no-such-skill/comments", data={"body": "hello", "csrf_token": token}
    )
    assert response.status_code == 404


def test_drill_posts_stay_out_of_search(client: TestClient) -> None:
    signup(client, name="Searcher")
    post_comment(client, f"/drills/{SKILL}", "Unsearchable xylophonicword approach")
    page = client.get("/search?q=xylophonicword").text
    assert "No results for “xylophonicword”" in page


def test_reply_notifications_link_to_the_drill_thread(client: TestClient) -> None:
    signup(client, name="Asker")
    asked = post_id_from(post_comment(client, f"/drills/{SKILL}", "How do MLA latents count?"))
    other = TestClient(client.app)
    signup(other, name="Helper")
    post_comment(other, f"/drills/{SKILL}", "One latent per layer", parent_id=asked)
    notices = client.get("/notifications").text
    assert f"/drills/{SKILL}/comments?sort=new#post-" in notices
