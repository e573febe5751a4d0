"""Cross-file checks run once every page is parsed: unique slugs and aliases, references to
cards, and internal links that resolve."""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from app.content.models import Concept, Exercise, Question

if TYPE_CHECKING:
    from app.content.collector import Collector
    from app.content.page_renderer import PageRenderer
    from app.content.render_cache import RenderCache


def check_unique(
    pages: list[Question] | list[Concept] | list[Exercise], kind: str, collector: Collector
) -> dict[str, str]:
    """Slugs and aliases share one namespace per kind. Returns alias → slug."""
    owner: dict[str, Path] = {}
    aliases: dict[str, str] = {}
    for page in pages:
        names = [("slug", page.slug)] + [("aliases", alias) for alias in page.meta.aliases]
        for field, name in names:
            if name in owner:
                collector.add(
                    page.path,
                    f"{kind} {name!r} is already used by {collector.rel(owner[name])}",
                    field,
                )
                continue
            owner[name] = page.path
            if field == "aliases":
                aliases[name] = page.slug
    return aliases


def check_references(
    questions: list[Question], concepts: dict[str, Concept], collector: Collector
) -> None:
    for question in questions:
        for slug in question.meta.concepts:
            if slug not in concepts:
                collector.add(question.path, f"unknown concept card {slug!r}", "concepts")
        for item in question.meta.rubric.items:
            for slug in item.concepts:
                if slug not in concepts:
                    collector.add(
                        question.path,
                        f"unknown concept card {slug!r}",
                        f"rubric.items.{item.id}.concepts",
                    )


def check_exercise_references(
    exercises: list[Exercise], concepts: dict[str, Concept], collector: Collector
) -> None:
    for exercise in exercises:
        for slug in exercise.meta.concepts:
            if slug not in concepts:
                collector.add(exercise.path, f"unknown concept card {slug!r}", "concepts")


STATIC_PAGES = frozenset(
    {
        "/",
        "/curriculum",
        "/calculator",
        "/calculator/accuracy",
        "/planner",
        "/search",
        "/signup",
        "/login",
        "/drills",
        "/exercises",
    }
)


def check_links(
    renderer: PageRenderer,
    known: dict[str, set[str]],
    collector: Collector,
) -> None:
    for path, links in renderer.links.items():
        for href in dict.fromkeys(links):  # the teaser re-renders part of the answer
            if not href.startswith("/") or href.startswith("//"):
                continue
            target = href.split("#", 1)[0].split("?", 1)[0].rstrip("/") or "/"
            if target in STATIC_PAGES:
                continue
            parts = target.strip("/").split("/")
            if len(parts) == 2 and parts[0] in known:
                if parts[1] in known[parts[0]]:
                    continue
                collector.add(path, f"links to {href!r}, which does not exist", "links")
            else:
                collector.add(path, f"links to {href!r}, which is not a page of this site", "links")


# A figure in the summary ("86", "4,096", "2.5×") or a code-like name (max_model_len).
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_CODE_NAME = re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b")
_WORD = re.compile(r"[a-z0-9]+")
# A run this many words long shared with the answer is a copied sentence, not a summary.
_SHARED_RUN = 7


def check_rubric_summaries(
    questions: list[Question], collector: Collector, cache: RenderCache
) -> None:
    """The rubric summary is public: it may say what is scored, never the answer's facts. The
    verdict is a pure function of the question's text, so an unchanged question is not checked
    again."""
    for question in questions:
        rubric = question.meta.rubric
        private = " ".join(
            [question.answer_text]
            + [item.text for item in rubric.items]
            + list(rubric.bands.values())
        )
        texts = (rubric.summary, question.answer_text, private)
        problems = cache.memo(
            "summary-check", "\x1f".join(texts), partial(_summary_problems, *texts)
        )
        for problem in problems:
            collector.add(question.path, problem, "rubric.summary")


def _summary_problems(summary: str, answer: str, private: str) -> list[str]:
    problems = []
    for label, pattern in (("figure", _NUMBER), ("name", _CODE_NAME)):
        found = {m.group() for m in pattern.finditer(summary)}
        given_away = sorted(
            token
            for token in found
            if re.search(rf"(?<![\w.,]){re.escape(token)}(?![\w]|[.,]\d)", private)
        )
        if given_away:
            problems.append(
                f"the summary gives away the {label}(s) {', '.join(given_away)} "
                "from the answer or rubric; say what is scored, not the result"
            )
    copied = _shared_run(summary, answer)
    if copied:
        problems.append(
            f"the summary copies the answer ({copied!r}); say what is scored, in other words"
        )
    return problems


def _shared_run(summary: str, answer: str) -> str | None:
    words = _WORD.findall(summary.lower())
    answer_words = " " + " ".join(_WORD.findall(answer.lower())) + " "
    for start in range(len(words) - _SHARED_RUN + 1):
        run = " ".join(words[start : start + _SHARED_RUN])
        if f" {run} " in answer_words:
            return run
    return None


def check_wrapped_sums(path: Path, body: str, collector: Collector) -> None:
    """Lines that markdown would turn into a block though the author wrapped a sentence: house
    style writes lists with '-', so a line starting '+ ' is a sum carried onto a new line; and a
    line starting '> ' straight after a line of prose is a comparison carried over, not a quote
    (a real quote follows a blank line). Indented the same: inside a list item's continuation
    either becomes a nested list or quote."""
    if "+ " not in body and ">" not in body:
        return  # nearly every page: nothing to look at
    in_fence = False
    previous = ""
    for number, line in enumerate(body.splitlines(), 1):
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
        elif not in_fence and line.lstrip().startswith("+ "):
            collector.add(
                path,
                f"line {number} of the body starts with '+ ', which markdown makes a list item; "
                "end the previous line with the '+' instead",
                "body",
            )
        elif (
            not in_fence
            and line.lstrip().startswith(">")
            and previous.strip()
            and not previous.lstrip().startswith(">")
        ):
            collector.add(
                path,
                f"line {number} of the body starts with '>' right after prose, which markdown "
                "makes a quote; end the previous line with the '>' instead",
                "body",
            )
        previous = line


# A word broken after its hyphen at a line end ("low-" / "latency"): markdown and YAML's folded
# strings join the lines with a space, so the page shows "low- latency". A suspended hyphen
# ("pre- and post-fill") is left alone.
_HYPHEN_AT_END = re.compile(r"[A-Za-z]-$")
_SUSPENDED = ("and ", "or ", "to ", "vs ")


def check_wrapped_hyphens(path: Path, text: str, collector: Collector) -> None:
    """A hyphenated word split across two lines, anywhere outside code (front matter too)."""
    lines = text.splitlines()
    in_fence = False
    for number, line in enumerate(lines, 1):
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
            continue
        if in_fence or number == len(lines) or not _HYPHEN_AT_END.search(line.rstrip()):
            continue
        following = lines[number].lstrip()
        if following[:1].isalpha() and not following.startswith(_SUSPENDED):
            collector.add(
                path,
                f"line {number} ends a hyphenated word that line {number + 1} finishes; the page "
                "joins them with a space ('low- latency'): keep the word on one line",
                "notation",
            )


# "a × 10⁹ ÷ 211 × 10⁹" read left to right multiplies by the second power of ten; a divisor in
# scientific notation needs brackets: "÷ (211 × 10⁹ B/s)".
_BARE_DIVISOR = re.compile(r"÷ \d[\d.,]* × 10[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+")


def check_division_notation(path: Path, text: str, collector: Collector) -> None:
    """A divisor written as 'b × 10ⁿ' without brackets, anywhere in the file (front matter too)."""
    if "÷" not in text:
        return
    for number, line in enumerate(text.splitlines(), 1):
        if match := _BARE_DIVISOR.search(line):
            collector.add(
                path,
                f"line {number}: {match.group()!r} divides by the number and then multiplies by the "
                "power of ten; bracket the divisor, as in '÷ (211 × 10⁹)'",
                "notation",
            )
