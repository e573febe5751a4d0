"""A plan's tasks in words and links. Titles of questions, cards and exercises are public (the
same for every reader), so a task line never carries anything from an answer: it is safe in a
page, on the dashboard and in the calendar file alike."""

from __future__ import annotations

from dataclasses import dataclass

from app.content.store import ContentStore
from app.drills import SKILLS
from app.plans.schedule import Scheduled


@dataclass(frozen=True)
class TaskLine:
    task: Scheduled
    verb: str
    title: str
    url: str
    done: bool
    moved_from: str = ""

    @property
    def minutes(self) -> int:
        return self.task.minutes


def describe(content: ContentStore, task: Scheduled, done: bool, moved_from: str = "") -> TaskLine:
    kind, ref = task.kind, task.ref
    if kind == "question":
        question = content.question_by_slug.get(content.question_aliases.get(ref, ref))
        title = question.title if question else ref
        return TaskLine(task, "Answer", title, f"/questions/{ref}#practice", done, moved_from)
    if kind == "card":
        concept = content.concept_by_slug.get(content.concept_aliases.get(ref, ref))
        title = concept.title if concept else ref
        return TaskLine(task, "Read", title, f"/concepts/{ref}", done, moved_from)
    if kind == "drill":
        skill = SKILLS.get(ref)
        title = f"{skill.title} (get one right)" if skill else ref
        return TaskLine(task, "Drill", title, f"/drills/{ref}", done, moved_from)
    if kind == "exercise":
        exercise = content.exercise_by_slug.get(content.exercise_aliases.get(ref, ref))
        title = exercise.title if exercise else ref
        return TaskLine(task, "Code", title, f"/exercises/{ref}", done, moved_from)
    if kind == "mock":
        return TaskLine(
            task, "Mock", f"a {task.minutes}-minute mock interview", "/mock", done, moved_from
        )
    return TaskLine(
        task,
        "Review",
        "your due reviews and your weakest questions",
        "/me/review",
        done,
        moved_from,
    )
