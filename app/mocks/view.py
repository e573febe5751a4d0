"""What a mock's pages show, for a member's run and a visitor's alike: the agenda, the clock,
the warm-up drill, the question being asked with the follow-ups given so far, and the texts.

Texts are keyed `t<i>` (question i's answer) and `t<i>f<k>` (its k-th follow-up): the names of
a visitor's form fields, and what a member's attempts are mapped to. The prompts shown while a
mock runs are the questions' public text (title and lede) and, for a question the reader may
read, its follow-ups' prompts; answers wait for the end.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from app.attempt_checks import check_question
from app.content.models import Question
from app.content.practice import FollowUp
from app.content.store import ContentStore
from app.dates import clock_time
from app.drills import Drill, generate
from app.mocks.focus import FOCUSES, LEVELS, WARMUP_MINUTES
from app.mocks.run import MockRun
from app.practice.view import OPEN, REVIEW, PracticeView

TEXT_FIELD = re.compile(r"^t(\d{1,2})(?:f(\d))?$")
MAX_FOLLOW_UPS = 3


def text_key(index: int, follow_up: int | None = None) -> str:
    return f"t{index}" if follow_up is None else f"t{index}f{follow_up}"


@dataclass(frozen=True)
class Given:
    number: int
    follow_up: FollowUp
    text: str
    late: bool


@dataclass(frozen=True)
class AgendaRow:
    title: str
    start: datetime
    end: datetime
    state: str  # done | now | next


@dataclass
class RunView:
    run: MockRun
    questions: list[Question | None]
    texts: dict[str, str]
    now: datetime
    zone: ZoneInfo
    late_keys: set[str]

    @property
    def focus_title(self) -> str:
        return FOCUSES[self.run.focus].title

    @property
    def level_title(self) -> str:
        return LEVELS[self.run.level].title

    @property
    def ended(self) -> bool:
        return self.run.ended(self.now)

    @property
    def index(self) -> int | None:
        return None if self.ended else self.run.current

    @property
    def warming_up(self) -> bool:
        return not self.ended and self.run.step == 0

    @property
    def question(self) -> Question | None:
        return self.questions[self.index] if self.index is not None else None

    @property
    def warmup(self) -> Drill:
        return generate(self.run.warmup_skill, self.run.warmup_seed)

    @property
    def warmup_minutes(self) -> int:
        return WARMUP_MINUTES

    def local(self, moment: datetime) -> str:
        """A time of day in the member's zone; the zone is named once, in end_time."""
        return f"{moment.astimezone(self.zone):%H:%M}"

    @property
    def end_time(self) -> str:
        return clock_time(self.run.deadline, self.zone)

    @property
    def seconds_left(self) -> int:
        return self.run.seconds_left(self.now)

    @property
    def clock_text(self) -> str:
        seconds = self.seconds_left
        return f"{seconds // 60}:{seconds % 60:02d}"

    def agenda(self) -> list[AgendaRow]:
        rows = []
        current = self.run.step
        for position, (what, start, end) in enumerate(self.run.agenda()):
            if what == "warm-up":
                title = f"Warm-up, {WARMUP_MINUTES} min: {self.warmup_title}"
            else:
                question = self.questions[position - 1]
                title = question.title if question else "(a question since removed)"
            state = "done" if position < current else "now" if position == current else "next"
            if self.ended:
                state = "done"
            rows.append(AgendaRow(title, start, end, state))
        return rows

    @property
    def warmup_title(self) -> str:
        from app.drills import SKILLS

        skill = SKILLS.get(self.run.warmup_skill)
        return f"a napkin drill, {skill.title}" if skill else "a napkin drill"

    def given(self) -> list[Given]:
        """The current question's follow-ups given so far, with what was written."""
        index, question = self.index, self.question
        if index is None or question is None:
            return []
        count = self.run.released(index, self.now)
        return [
            Given(
                k,
                question.practice.follow_ups[k - 1],
                self.texts.get(text_key(index, k), ""),
                text_key(index, k) in self.late_keys,
            )
            for k in range(1, count + 1)
        ]

    @property
    def more_follow_ups(self) -> bool:
        index = self.index
        return (
            index is not None
            and self.run.released(index, self.now) < (self.run.follow_up_counts[index])
        )

    @property
    def next_follow_up_at(self) -> datetime | None:
        index = self.index
        if index is None:
            return None
        return self.run.follow_up_due(index, self.run.released(index, self.now) + 1)

    @property
    def last_question(self) -> bool:
        return self.index is not None and self.index == self.run.count - 1

    def question_end(self) -> datetime | None:
        if self.index is None:
            return None
        return self.run.agenda()[self.index + 1][2]

    def other_texts(self) -> list[tuple[str, str]]:
        """Texts of the other questions (a visitor's hidden fields), in order."""
        current = {text_key(self.index)} if self.index is not None else set()
        if self.index is not None:
            current |= {
                text_key(self.index, k) for k in range(1, self.run.follow_up_counts[self.index] + 1)
            }
        return [(k, v) for k, v in sorted(self.texts.items()) if k not in current and v]


def questions(content: ContentStore, slugs: list[str]) -> list[Question | None]:
    return [content.question_by_slug.get(content.question_aliases.get(s, s)) for s in slugs]


def texts_from_form(form: dict[str, str], count: int) -> dict[str, str]:
    """A visitor's texts as their form sent them (only well-formed keys within the mock)."""
    out = {}
    for key, value in form.items():
        match = TEXT_FIELD.match(key)
        if match and int(match.group(1)) < count and value.strip():
            out[key] = value.replace("\r\n", "\n")
    return out


def practice_view(question: Question, text: str) -> PracticeView:
    """The practice loop's review state for a mock's answer: the numbers check and the example
    answers come from the same view the question page uses."""
    figures = question.practice.checks
    numbers = check_question(question, text) if figures and text.strip() else None
    return PracticeView(question, True, True, REVIEW, OPEN, 0, text, numbers, False)
