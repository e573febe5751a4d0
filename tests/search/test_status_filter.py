"""Home and track lists filter by the member's own status; visitors never see that filter."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from sqlalchemy import select
from starlette.testclient import TestClient

from app.content.models import Question, Track
from app.content.store import ContentStore
from app.db.base import utcnow
from app.db.models.accounts import User
from app.practice import saved
from app.practice import service as practice
from tests.helpers import signup, unique_email


def listed(page: str) -> list[str]:
    block = page.split('id="question-list"', 1)[1]
    return re.findall(r'class="question-link" href="(/questions/[^"]+)"', block)


Member = tuple[TestClient, Track, tuple[Question, Question, Question]]


@pytest.fixture
def member(client: TestClient, content_store: ContentStore) -> Member:
    """A member who attempted q0, bookmarked q1 and has q2 due for review (all in one track)."""
    track = content_store.tracks[0]
    q0, q1, q2 = track.questions[:3]
    email = unique_email("status")
    signup(client, email=email)
    with client.app.state.db.writer() as db, db.begin():
        user = db.scalars(select(User).where(User.email == email)).one()
        practice.save_draft(db, user, (q0.slug,), "My first try")
        saved.toggle_bookmark(db, user, (q1.slug,))
        practice.schedule(db, user, (q2.slug,), 1, utcnow() - timedelta(days=30))
    return client, track, (q0, q1, q2)


def test_visitors_get_no_status_filter(client: TestClient, content_store: ContentStore) -> None:
    home = client.get("/")
    assert home.status_code == 200 and 'name="status"' not in home.text
    every = [q.url for q in content_store.questions]
    assert listed(client.get("/", params={"status": "due"}).text) == every  # ignored
    assert client.get("/", params={"status": "bogus"}).status_code == 400
    track = content_store.tracks[0]
    assert 'name="status"' not in client.get(track.url).text


def test_members_filter_the_home_list_by_status(
    member: Member, content_store: ContentStore
) -> None:
    client, _track, (q0, q1, q2) = member
    home = client.get("/").text
    assert 'name="status"' in home and "Due for review" in home
    assert listed(client.get("/", params={"status": "attempted"}).text) == [q0.url]
    assert listed(client.get("/", params={"status": "bookmarked"}).text) == [q1.url]
    assert q2.url in listed(client.get("/", params={"status": "due"}).text)
    fresh = listed(client.get("/", params={"status": "new"}).text)
    assert len(fresh) == len(content_store.questions) - 3
    assert not {q0.url, q1.url, q2.url} & set(fresh)
    assert client.get("/", params={"status": "overdue"}).status_code == 400


def test_status_combines_with_the_other_filters_and_swaps_in_place(member: Member) -> None:
    client, track, (q0, _q1, _q2) = member
    other = next(t for t in client.app.state.content.store.tracks if t is not track)
    assert listed(client.get("/", params={"status": "attempted", "track": other.slug}).text) == []
    fragment = client.get("/", params={"status": "attempted"}, headers={"HX-Request": "true"})
    assert fragment.text.lstrip().startswith('<div id="question-list"')
    assert listed(fragment.text) == [q0.url] and "these filters" in fragment.text


def test_track_pages_filter_by_status_and_level(member: Member) -> None:
    client, track, (q0, q1, _q2) = member
    page = client.get(track.url).text
    assert 'name="status"' in page and 'name="level"' in page
    assert listed(page) == [q.url for q in track.questions]
    assert listed(client.get(track.url, params={"status": "bookmarked"}).text) == [q1.url]
    level = q0.meta.level
    same_level = [q.url for q in track.questions if q.meta.level == level]
    assert listed(client.get(track.url, params={"level": level}).text) == same_level
    assert client.get(track.url, params={"status": "x"}).status_code == 400
    assert client.get(track.url, params={"level": "x"}).status_code == 400
    fragment = client.get(track.url, params={"status": "new"}, headers={"HX-Request": "true"})
    assert fragment.text.lstrip().startswith('<div id="question-list"')
