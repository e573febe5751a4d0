"""Properties of the numbers check over the real content: every key figure, written as the page
shows it, reads back correct (through the question page after the reveal and through the API:
no check can break a page), and no example answer is graded wrong or close against its own
question's figures (a real example that is wrong is a content error to fix, not a reason to
loosen this)."""

from __future__ import annotations

import re
from html import unescape

from starlette.testclient import TestClient

from app.attempt_checks import check_question, describe, show_figure
from app.content.markdown import html_to_text
from app.content.models import Question
from app.content.store import ContentStore
from tests.helpers import csrf_token, signup


def with_figures(question: Question) -> bool:
    return bool(question.practice.checks)


def own_values(question: Question) -> str:
    """An attempt that states every key figure of the question in its own words and unit."""
    return " ".join(f"{show_figure(f)} for the {f.id}." for f in question.practice.checks or [])


def test_every_figure_read_back_is_right(content_store: ContentStore) -> None:
    wrong = []
    for question in filter(with_figures, content_store.questions):
        report = check_question(question, own_values(question))
        graded = {n.figure.id for n in report.numbers if n.verdict == "correct" and n.figure}
        for figure in question.practice.checks or []:
            same_value = any(
                other.value == figure.value and other.id in graded
                for other in question.practice.checks or []
            )
            if figure.id not in graded and not same_value:
                wrong.append(f"{question.slug}: {figure.id} ({show_figure(figure)})")
    assert wrong == []


def test_every_reveal_renders_with_every_figures_own_value(
    sqlite_client: TestClient, content_store: ContentStore
) -> None:
    """The page a member sees after the reveal, and the API's answer, for every question."""
    signup(sqlite_client)
    questions = list(filter(with_figures, content_store.questions))
    token = csrf_token(sqlite_client, questions[0].url)
    for question in questions:
        attempt = own_values(question)
        revealed = sqlite_client.post(
            f"/questions/{question.slug}/reveal",
            data={"csrf_token": token, "body": attempt},
            follow_redirects=False,
        )
        assert revealed.status_code == 303, question.slug
        page = sqlite_client.get(question.url)
        assert page.status_code == 200, question.slug
        section = page.text[page.text.index('id="numbers-check"') :]
        section = unescape(re.sub(r"<[^>]+>", " ", section[: section.index("</div>")]))
        assert "is right for" in section and "does not match" not in section, question.slug
        api = sqlite_client.post(f"/api/v1/questions/{question.slug}/check", json={"text": attempt})
        assert api.status_code == 200, question.slug
        verdicts = {n["verdict"] for n in api.json()["numbers"]}
        assert verdicts <= {"correct", None}, (question.slug, api.json()["numbers"])


def test_no_example_answer_is_graded_wrong_or_close(content_store: ContentStore) -> None:
    """The mid, senior and staff examples are right answers: none of their numbers is graded
    wrong or close against the question's key figures (numbers they state for other steps are
    set aside or not compared, and say why)."""
    graded_wrong = []
    examples = 0
    for question in filter(with_figures, content_store.questions):
        for level, html in question.practice.examples_html.items():
            examples += 1
            report = check_question(question, html_to_text(html))
            graded_wrong += [
                f"{question.slug} [{level}] {describe(n)}"
                for n in report.numbers
                if n.verdict not in ("correct", None)
            ]
    assert examples >= 150
    assert graded_wrong == []


def test_a_capture_size_is_not_a_graph(content_store: ContentStore) -> None:
    """vLLM captures a full graph and a set of piecewise graphs per batch size, so "51 sizes" is an
    attempt at the capture-size figure and "1,700 graphs" is not (it counts something else)."""
    question = next(q for q in content_store.questions if q.slug == "cuda-graphs-small-batch")
    figure = next(f for f in question.practice.checks or [] if f.id == "capture-sizes")
    assert show_figure(figure) == "51 sizes"
    sizes = check_question(question, "It captures 51 sizes.")
    assert [(n.figure.id, n.verdict) for n in sizes.numbers if n.figure] == [
        ("capture-sizes", "correct")
    ]
    graphs = check_question(question, "That is about 1,700 piecewise graphs.")
    assert [n for n in graphs.numbers if n.figure and n.figure.id == "capture-sizes"] == []
