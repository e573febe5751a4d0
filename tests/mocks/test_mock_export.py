"""A member's mocks, interviewer scorecards, study plans and cards read are in their data export
(the account page says "everything we hold")."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from tests.helpers import csrf_token, signup


def test_mocks_and_plans_are_in_the_export(client, app, content_store) -> None:  # type: ignore[no-untyped-def]
    signup(client)
    token = csrf_token(client, "/mock")
    data = {"csrf_token": token, "focus": "inference", "level": "senior", "minutes": "30"}
    assert client.post("/mock/start", data=data, follow_redirects=False).status_code == 303
    token = csrf_token(client, "/plan")
    target = (datetime.now(UTC) + timedelta(days=21)).date().isoformat()
    plan = {"csrf_token": token, "focus": "gpus", "level": "senior", "target": target}
    made = client.post("/plan", data={**plan, "daily": "60"}, follow_redirects=False)
    assert made.status_code == 303
    exported = json.loads(client.get("/account/export.json").text)
    (mock,) = exported["mock_interviews"]["mocks"]
    assert mock["focus"] == "inference" and mock["minutes"] == 30 and mock["questions"]
    assert isinstance(mock["id"], int)
    assert exported["mock_interviews"]["interviewer_scorecards"] == []
    (study,) = exported["study_plans"]["plans"]
    assert study["focus"] == "gpus" and study["daily_minutes"] == 60 and study["tasks"]
    assert {"day", "kind", "ref", "minutes"} <= set(study["tasks"][0])


def test_settings_reports_replies_and_sessions_are_in_the_export(client, app) -> None:  # type: ignore[no-untyped-def]
    signup(client)
    token = csrf_token(client, "/drills")
    client.post("/drills/sessions", data={"csrf_token": token, "skill": "mixed", "timed": "1"})
    exported = json.loads(client.get("/account/export.json").text)
    assert set(exported["account"]["settings"]) == {
        "fold_approaches_until_answer_opened",
        "email_on_replies",
        "answer_first",
    }
    (session,) = exported["drills"]["sessions"]
    assert session["timed"] is True and len(session["drills"]) == 10
    for key in ("reports_filed", "reply_notifications", "answers_opened"):
        assert exported["discussion"][key] == []
    assert all("context" in a for a in exported["practice"]["attempts"])
