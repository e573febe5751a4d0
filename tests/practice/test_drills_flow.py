"""Drill pages end to end on both databases: visitors drill and nothing is stored; members get
accuracy and streak per skill on /me and the weak skill in their reviews."""

from __future__ import annotations

import json
import re
from datetime import timedelta

from sqlalchemy import func, select, update
from starlette.testclient import TestClient

from app.db.base import utcnow
from app.db.models.drills import DrillAttempt, DrillReviewCard
from app.drills import generate
from tests.helpers import PASSWORD, csrf_token, post_form, signup

SKILL = "kv-bytes-per-token"


def llama_seed() -> int:
    return next(
        s
        for s in range(2000)
        if (d := generate(SKILL, s)).model == "llama-3.1-8b" and "bf16" in d.prompt
    )


def answer(client: TestClient, seed: int, text: str, *, skill: str = SKILL, htmx: bool = False):  # type: ignore[no-untyped-def]
    token = csrf_token(client, f"/drills/{skill}?seed={seed}")
    headers = {"HX-Request": "true"} if htmx else {}
    return client.post(
        f"/drills/{skill}/answer",
        data={"seed": str(seed), "answer": text, "csrf_token": token},
        headers=headers,
        follow_redirects=False,
    )


def count(app, model) -> int:  # type: ignore[no-untyped-def]
    with app.state.db.reader() as db:
        return db.scalar(select(func.count()).select_from(model)) or 0


def test_index_links_every_skill_and_mixed(client: TestClient) -> None:
    page = client.get("/drills").text
    for skill in ("kv-bytes-per-token", "min-gpus", "tp-degrees", "all-reduce-time"):
        assert f'href="/drills/{skill}"' in page
    assert 'href="/drills/mixed"' in page
    assert 'href="/drills"' in client.get("/").text  # in the header nav


def test_a_drill_has_a_stable_url(client: TestClient) -> None:
    first = client.get(f"/drills/{SKILL}", follow_redirects=False)
    assert first.status_code == 303
    location = first.headers["location"]
    assert re.fullmatch(rf"/drills/{SKILL}\?seed=\d+", location)
    assert client.get(location).status_code == 200
    seed = llama_seed()
    one, two = (
        client.get(f"/drills/{SKILL}?seed={seed}").text,
        client.get(f"/drills/{SKILL}?seed={seed}").text,
    )
    prompt = re.search(r'<h1 class="drill-prompt">(.*?)</h1>', one).group(1)  # type: ignore[union-attr]
    assert prompt in two and "Llama 3.1 8B" in prompt
    assert "<code>num_key_value_heads</code>" in one
    mixed = client.get("/drills/mixed", follow_redirects=False)
    assert mixed.status_code == 303 and "mixed=1" in mixed.headers["location"]


def test_bad_addresses(client: TestClient) -> None:
    assert client.get("/drills/no-such-skill?seed=1").status_code == 404
    assert client.get(f"/drills/{SKILL}?seed=-1").status_code == 422
    assert client.get(f"/drills/{SKILL}?seed=99999999999999").status_code == 422
    assert client.get(f"/drills/{SKILL}?seed=abc").status_code == 422


def test_visitor_drills_freely_and_nothing_is_stored(client: TestClient, app) -> None:  # type: ignore[no-untyped-def]
    seed = llama_seed()
    right = answer(client, seed, "128 KiB")
    assert right.status_code == 200 and "verdict-correct" in right.text
    assert "Worked solution" in right.text and 'href="/concepts/kv-cache-sizing"' in right.text
    wrong = answer(client, seed, "512 KiB", htmx=True)
    assert wrong.status_code == 200 and "<html" not in wrong.text
    assert "Classic mistake: attention heads instead of KV heads" in wrong.text
    assert "You used 32 attention heads; the cache holds 8 KV heads" in wrong.text
    assert "Sign up free" in wrong.text
    assert count(app, DrillAttempt) == 0 and count(app, DrillReviewCard) == 0


def test_unreadable_answer_is_a_422_naming_it(client: TestClient) -> None:
    seed = llama_seed()
    plain = answer(client, seed, "12 parsecs")
    assert plain.status_code == 422 and "Unknown unit “parsecs”" in plain.text
    assert 'value="12 parsecs"' in plain.text  # the form keeps what was typed
    swapped = answer(client, seed, "2.3 ms", htmx=True)
    assert (
        swapped.status_code == 422 and "is a time" in swapped.text and "<html" not in swapped.text
    )
    overlong = answer(client, seed, "1" * 5000, htmx=True)
    assert overlong.status_code == 422 and "over 100 characters" in overlong.text
    assert "<html" not in overlong.text


def test_answer_needs_a_csrf_token(client: TestClient) -> None:
    response = client.post(f"/drills/{SKILL}/answer", data={"seed": "1", "answer": "1"})
    assert response.status_code == 403


def test_member_accuracy_streak_and_review_queue(client: TestClient, app) -> None:  # type: ignore[no-untyped-def]
    signup(client)
    seed = llama_seed()
    assert "verdict-correct" in answer(client, seed, "128 KiB").text
    retry = answer(client, seed, "1 KiB")
    assert "only your first answer counts" in retry.text
    assert count(app, DrillAttempt) == 1
    other = next(s for s in range(seed + 1, seed + 3000) if generate(SKILL, s).mistakes)
    drill = generate(SKILL, other)
    named = answer(client, other, str(int(drill.mistakes[0].value)))
    assert "Classic mistake" in named.text and "Recorded." in named.text
    me = client.get("/me").text
    assert "KV bytes per token" in me and "50%" in me
    assert "Weak skills" in me
    # The miss comes back in ten minutes: tomorrow, for a run just before midnight.
    with app.state.db.writer() as db, db.begin():
        db.execute(
            update(DrillReviewCard)
            .where(DrillReviewCard.skill == SKILL)
            .values(due=utcnow() - timedelta(hours=1))
        )
    review = client.get("/me/review").text
    assert "Drills due" in review and f'href="/drills/{SKILL}"' in review
    # A correct answer on another skill: not weak, not due today.
    degrees = generate("tp-degrees", 3)
    answer(client, 3, ", ".join(map(str, degrees.expected)), skill="tp-degrees")
    me = client.get("/me").text
    assert re.search(r"Legal TP degrees</a></th><td>100%", me)
    review = client.get("/me/review").text
    assert 'href="/drills/tp-degrees"' not in review


def test_sitemap_lists_drills(client: TestClient) -> None:
    sitemap = client.get("/sitemap.xml").text
    assert "/drills</loc>" in sitemap and "/drills/kv-per-sequence" not in sitemap


def test_drills_are_in_the_export_and_go_with_the_account(client: TestClient, app) -> None:  # type: ignore[no-untyped-def]
    signup(client)
    seed = llama_seed()
    answer(client, seed, "512 KiB")
    data = json.loads(client.get("/account/export.json").text)
    (row,) = data["drills"]["answers"]
    assert row["skill"] == SKILL and row["seed"] == seed and row["mistake"] == "attention-heads"
    assert data["drills"]["review_schedule"][0]["skill"] == SKILL
    deleted = post_form(
        client,
        "/account/delete",
        {"current_password": PASSWORD, "confirmation": "delete my account"},
    )
    assert deleted.status_code == 303
    assert count(app, DrillAttempt) == 0 and count(app, DrillReviewCard) == 0


def test_advanced_variant_shows_the_model_name_only(client: TestClient) -> None:
    seed = llama_seed()
    plain = client.get(f"/drills/{SKILL}?seed={seed}").text
    advanced = client.get(f"/drills/{SKILL}?seed={seed}&advanced=1").text
    assert "<code>num_key_value_heads</code>" in plain
    assert "<code>num_key_value_heads</code>" not in advanced
    assert "Llama 3.1 8B" in advanced and "<code>kv_dtype_bytes</code>" in advanced
    assert 'name="advanced" value="true"' in advanced
    nxt = client.get(f"/drills/{SKILL}?advanced=1", follow_redirects=False)
    assert nxt.headers["location"].endswith("&advanced=1")
