"""/plan through the pages: visitors are asked to sign up, members start one plan, today's
tasks are on the dashboard, the .ics holds public titles only, CSRF on every POST, "Mark as
read" ticks a card task."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tests.helpers import csrf_token, signup

NOW = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)


def test_plan_pages(client, app, content_store) -> None:  # type: ignore[no-untyped-def]
    app.state.clock = lambda: NOW
    visitor = client.get("/plan").text
    assert "Sign up free to make a plan" in visitor
    assert client.post("/plan", data={"focus": "gpus"}).status_code in (303, 403)
    signup(client)
    token = csrf_token(client, "/plan")
    assert client.post("/plan", data={"focus": "gpus", "level": "senior"}).status_code == 403
    bad = client.post("/plan", data={"csrf_token": token, "focus": "gpus", "level": "senior",
                                     "target": "2026-06-02", "daily": "60"})  # fmt: skip
    assert bad.status_code == 422 and "at least two days" in bad.text
    target = (NOW + timedelta(days=21)).date().isoformat()
    made = client.post("/plan", data={"csrf_token": token, "focus": "gpus", "level": "senior",
                                      "target": target, "daily": "60"}, follow_redirects=False)  # fmt: skip
    assert made.status_code == 303
    page = client.get("/plan").text
    assert "Today" in page and "Add to your calendar" in page
    again = client.post("/plan", data={"csrf_token": token, "focus": "gpus", "level": "senior",
                                       "target": target, "daily": "60"})  # fmt: skip
    assert again.status_code == 422 and "You have a plan already" in again.text
    home = client.get("/").text
    assert "Today's plan" in home
    # The calendar file: public titles only, never an answer or a rubric item.
    ics = client.get("/plan.ics")
    assert ics.status_code == 200 and ics.headers["content-type"].startswith("text/calendar")
    body = ics.text.replace("\r\n ", "")
    assert "BEGIN:VEVENT" in body and "Interview day" in body
    for question in content_store.questions:
        if question.track.slug in ("gpu-architecture", "gpu-kernels"):
            for item in question.rubric.items:
                assert item.text[:30] not in body
    # A card task ticks when the card is marked read.
    first_card = next(line for line in page.split('class="plan-task kind-card')[1:2])
    slug = first_card.split('href="/concepts/')[1].split('"')[0]
    assert client.post(f"/concepts/{slug}/read", data={}).status_code == 403
    client.post(f"/concepts/{slug}/read", data={"csrf_token": token})
    page = client.get("/plan").text
    assert 'kind-card is-done">' in page or "is-done" in page
    assert "Read" in client.get(f"/concepts/{slug}").text
    closed = client.post(
        "/plan/close", data={"csrf_token": token, "status": "abandoned"}, follow_redirects=True
    )
    assert "Earlier plans" in closed.text and "abandoned" in closed.text
    assert client.get("/plan.ics").status_code == 404


def test_a_plan_too_full_for_its_daily_time_says_so(client, app, content_store) -> None:  # type: ignore[no-untyped-def]
    app.state.clock = lambda: NOW
    signup(client)
    token = csrf_token(client, "/plan")
    target = (NOW + timedelta(days=5)).date().isoformat()
    made = client.post("/plan", data={"csrf_token": token, "focus": "gpus", "level": "senior",
                                      "target": target, "daily": "15"}, follow_redirects=False)  # fmt: skip
    assert made.status_code == 303
    page = client.get("/plan").text
    assert "more than your 15 minutes" in page and "Nothing was dropped" in page
