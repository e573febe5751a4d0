"""The cards under a question are ranked on its public text: its answer moves nothing."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from app.content.store import ContentStore
from app.main import load_site_content

CONTENT = Path(__file__).resolve().parents[2] / "content"


def locked_question_copy(tmp_path: Path, store: ContentStore):  # type: ignore[no-untyped-def]
    """(a locked question with three or more cards, the content copied, its file in the copy)."""
    question = next(q for q in store.questions if not q.is_free and len(q.concepts) > 2)
    copy = tmp_path / "content"
    shutil.copytree(CONTENT, copy)
    return question, copy, copy / "questions" / f"{question.slug}.md"


def test_a_questions_answer_does_not_change_its_concept_order(
    tmp_path: Path, content_store: ContentStore
) -> None:
    question, copy, path = locked_question_copy(tmp_path, content_store)
    last = question.concepts[-1]
    text = path.read_text()
    stuffing = f"\n\n{(last.title + ' ' + last.summary_text + ' ') * 30}\n"
    path.write_text(text.replace("\n## Sources", stuffing + "\n## Sources", 1))
    changed = load_site_content(copy)
    again = changed.question_by_slug[question.slug]
    assert again.answer_text != question.answer_text  # the answer did change
    assert [c.slug for c in again.concepts] == [c.slug for c in question.concepts]
    assert again.concept_scores == question.concept_scores


def test_a_questions_rubric_items_do_not_change_its_concept_order(
    tmp_path: Path, content_store: ContentStore
) -> None:
    """The items follow the answer's rule (members who revealed it only): tying every item to
    the last card must not lift it."""
    question, copy, path = locked_question_copy(tmp_path, content_store)
    last = question.concepts[-1]
    text = path.read_text()
    retied = re.sub(r"(?m)^(\s+concepts: )\[[^\]]*\]", rf"\g<1>[{last.slug}]", text)
    assert retied != text
    path.write_text(retied)
    changed = load_site_content(copy)
    again = changed.question_by_slug[question.slug]
    assert {s for item in again.rubric.items for s in item.concepts} == {last.slug}
    assert [c.slug for c in again.concepts] == [c.slug for c in question.concepts]
    assert again.concept_scores == question.concept_scores
