"""Follow-ups on a question page: after the reveal, each with its own attempt (context
"followup:<n>") and reveal, following the answer's access rule, the knob shown as what changed."""

from __future__ import annotations

import re

from sqlalchemy import select

from app.db.models.practice import Attempt
from tests.helpers import csrf_token, signup

FREE = "kv-bound-deployment"  # free, with follow-ups
LOCKED = "concurrent-sessions-on-8xh200"  # account-only, with follow-ups
FIRST_PROMPT = "128K-token conversations"
FIRST_ANSWER = "The\n      pool itself does not change"


def _answer_phrase(html: str) -> bool:
    return "pool itself does not change" in html


def test_visitor_sees_follow_ups_only_after_revealing_a_free_answer(sqlite_client) -> None:  # type: ignore[no-untyped-def]
    page = sqlite_client.get(f"/questions/{FREE}").text
    assert "The interviewer follows up" not in page
    assert FIRST_PROMPT not in page
    revealed = sqlite_client.post(
        f"/questions/{FREE}/try", data={"body": "320 KiB per token", "action": "reveal"}
    )
    assert revealed.status_code == 200
    assert "The interviewer follows up" in revealed.text
    assert FIRST_PROMPT in revealed.text
    assert _answer_phrase(revealed.text)  # folded in a <details>, no JavaScript needed
    assert "What changed:" in revealed.text and "131,072 tokens" in revealed.text


def test_a_locked_question_gives_visitors_no_follow_up(sqlite_client) -> None:  # type: ignore[no-untyped-def]
    page = sqlite_client.get(f"/questions/{LOCKED}").text
    assert "The interviewer follows up" not in page
    assert "8,192 tokens and rarely reach 32K" not in page
    tried = sqlite_client.post(f"/questions/{LOCKED}/try", data={"body": "x", "action": "reveal"})
    assert "rarely reach 32K" not in tried.text


def test_member_follow_up_attempt_reveal_and_self_check(client, app) -> None:  # type: ignore[no-untyped-def]
    signup(client)
    page = client.get(f"/questions/{LOCKED}").text
    assert "The interviewer follows up" not in page  # before the question's own reveal
    token = csrf_token(client, f"/questions/{LOCKED}")
    refused = client.post(
        f"/questions/{LOCKED}/followups/1/reveal", data={"csrf_token": token, "body": "x"}
    )
    assert refused.status_code == 409
    client.post(
        f"/questions/{LOCKED}/reveal",
        data={"csrf_token": token, "body": "About 60 sessions of 32K on the node."},
    )
    page = client.get(f"/questions/{LOCKED}").text
    assert "rarely reach 32K" in page
    # The expected answer is not in the page until this follow-up is revealed.
    assert "max_num_seqs near what the pool" not in page
    no_token = client.post(f"/questions/{LOCKED}/followups/1/attempt", data={"body": "x"})
    assert no_token.status_code == 403
    saved = client.post(
        f"/questions/{LOCKED}/followups/1/attempt",
        data={"csrf_token": token, "body": "Admit on the average, with headroom."},
        follow_redirects=False,
    )
    assert saved.status_code == 303 and saved.headers["location"].endswith("#followup-1")
    client.post(f"/questions/{LOCKED}/followups/1/reveal", data={"csrf_token": token})
    page = client.get(f"/questions/{LOCKED}").text
    assert (
        "max_num_seqs near what the pool" in page and "Admit on the average, with headroom." in page
    )
    assert "How did it go?" in page
    client.post(f"/questions/{LOCKED}/followups/1/score", data={"csrf_token": token, "band": "2"})
    page = client.get(f"/questions/{LOCKED}").text
    assert re.search(r"You said: <strong>Partly</strong>", page)
    with app.state.db.writer() as db:
        rows = db.scalars(select(Attempt).order_by(Attempt.id)).all()
        contexts = [(row.context, row.band) for row in rows]
    assert ("followup:1", 2) in contexts
    # The question's own attempt is still open to score: the follow-up did not take its place.
    assert ("practice", None) in contexts


def test_follow_up_out_of_range_is_404(client) -> None:  # type: ignore[no-untyped-def]
    signup(client)
    token = csrf_token(client, f"/questions/{FREE}")
    response = client.post(f"/questions/{FREE}/followups/9/reveal", data={"csrf_token": token})
    assert response.status_code == 404


def test_every_knob_a_follow_up_turns_is_named_for_the_reader(content_store) -> None:  # type: ignore[no-untyped-def]
    """A knob key without a label showed as its raw field name (scale_out_gbps: 504) in the
    "what changed" line; every key the content uses must read as words, with its unit."""
    from app.practice.follow_ups import KNOB_LABELS, knob_changes

    for question in content_store.questions:
        for follow_up in question.practice.follow_ups:
            assert set(follow_up.knob) <= set(KNOB_LABELS), (question.slug, follow_up.knob)
    pcie = next(q for q in content_store.questions if q.slug == "pcie-gpus-for-serving")
    link = [c for f in pcie.practice.follow_ups for c in knob_changes(pcie, f)]
    assert any(c.after == "504 Gb/s" for c in link), link
