"""Every date a reader sees has one format ("30 Nov 2026", with ", 14:05 UTC" when the time
matters, or "Dec 2026" for a date known only to the month), whichever page or partial renders
it."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from pathlib import Path

from starlette.testclient import TestClient

from app.content.store import ContentStore
from app.dates import MonthDate, human_date
from tests.helpers import csrf_token, post_comment, signup

DAY = r"\d{1,2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4}"
MONTH = r"(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4}"
ONE_FORMAT = re.compile(rf"{DAY}(, \d\d:\d\d UTC)?|{MONTH}")
TIME_TEXT = re.compile(r"<time datetime=\"[^\"]+\"[^>]*>([^<]*)</time>")


def shown_dates(html: str) -> list[str]:
    return TIME_TEXT.findall(html)


def assert_one_format(texts: list[str]) -> None:
    assert texts, "expected dates on the page"
    for text in texts:
        assert ONE_FORMAT.fullmatch(text), text


def test_the_filter_format() -> None:
    assert human_date(date(2026, 11, 30)) == "30 Nov 2026"
    assert human_date(date(2026, 12, 1)) == "1 Dec 2026"
    stamp = datetime(2026, 12, 1, 9, 5, tzinfo=UTC)
    assert human_date(stamp, with_time=True) == "1 Dec 2026, 09:05 UTC"
    # A page's "updated: 2026-12" is known only to the month: no day is invented for it.
    assert human_date(MonthDate(2026, 12, 1)) == "Dec 2026"


def test_question_post_and_draft_dates_share_the_format(
    client: TestClient, content_store: ContentStore
) -> None:
    question = next(q for q in content_store.questions if q.is_free)
    signup(client)
    post_comment(client, question.url, "A dated post.")
    saved = client.post(
        f"/questions/{question.slug}/attempt",
        data={"body": "draft", "csrf_token": csrf_token(client, question.url)},
        headers={"HX-Request": "true"},
    )
    assert re.search(rf"Saved · {DAY}, \d\d:\d\d UTC<", saved.text), saved.text
    page = client.get(question.url).text
    dates = shown_dates(page)
    assert len(dates) >= 2  # "Updated" and the post's date
    assert_one_format(dates)
    assert re.search(rf"Saved · {DAY}, \d\d:\d\d UTC<", page)
    concept = question.concepts[0]
    assert_one_format(shown_dates(client.get(concept.url).text))
    assert_one_format(shown_dates(client.get("/account").text))


def test_no_template_or_view_formats_a_date_itself() -> None:
    root = Path(__file__).resolve().parents[2]
    offenders = [
        str(path.relative_to(root))
        for folder in ("templates", "app/web", "app/practice", "app/discussion", "app/content")
        for path in (root / folder).rglob("*")
        if path.suffix in {".html", ".py"} and "strftime(" in path.read_text()
    ]
    assert offenders == []
