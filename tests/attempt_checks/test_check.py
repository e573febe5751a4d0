"""Your numbers, checked: the attempt's numbers read with the drills' parser, matched to the key
figures and graded with the drills' grading and classic mistakes."""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.attempt_checks import check_numbers, describe
from app.attempt_checks.check import check_question, figure_mistakes, question_prompt, tolerance_of
from app.attempt_checks.match import GIVEN, TOTAL
from app.attempt_checks.scan import find_givens
from app.content.key_figures import KeyFigure
from app.content.store import ContentStore
from app.drills.grading import CORRECT, grade_against
from app.drills.units import BYTES, COUNT, SECONDS
from app.sizing import SizingRequest, load_preset, size

FLAGSHIP = "kv-bound-deployment"
OTHERS = ("concurrent-sessions-on-8xh200", "size-an-unseen-config", "fp8-int4-or-nvfp4-weights")


def figures(content_store: ContentStore, slug: str) -> list[KeyFigure]:
    checks = content_store.question_by_slug[slug].practice.checks
    assert checks, f"{slug} has no key figures"
    return checks


def only(text: str, figs: list[KeyFigure]):  # type: ignore[no-untyped-def]
    (number,) = check_numbers(text, figs).numbers
    return number


def test_the_flagship_examples(content_store: ContentStore) -> None:
    figs = figures(content_store, FLAGSHIP)
    right = only("The cache costs 320 KiB per token.", figs)
    assert (right.figure.id, right.verdict, right.mistake) == ("kv-per-token", CORRECT, None)
    missing_v = only("I get 160 KiB per token.", figs)
    assert (missing_v.figure.id, missing_v.verdict) == ("kv-per-token", "wrong")
    assert missing_v.mistake.id == "forgot-k-and-v"
    assert "“160 KiB per token”" in describe(missing_v)
    assert missing_v.mistake.name in describe(missing_v)
    heads = only("That is 2.5 MiB per token.", figs)
    assert (heads.figure.id, heads.verdict, heads.mistake.id) == (
        "kv-per-token",
        "wrong",
        "attention-heads",
    )
    assert "64 attention heads" in describe(heads)


def test_figures_never_stated_are_listed(content_store: ContentStore) -> None:
    figs = figures(content_store, FLAGSHIP)
    report = check_numbers("Per token 320 KiB per token; the node holds 85 sessions.", figs)
    assert [n.figure.id for n in report.numbers] == ["kv-per-token", "sessions-bf16"]
    assert [f.id for f in report.not_stated] == [
        "kv-per-session",
        "kv-budget-per-gpu",
        "sessions-fp8",
    ]
    empty = check_numbers("I would check the metrics first and then buy memory.", figs)
    assert empty.numbers == [] and len(empty.not_stated) == len(figs)


def test_an_exact_mistake_wins_over_a_nearer_correct_value(content_store: ContentStore) -> None:
    per_token = figures(content_store, FLAGSHIP)[0]
    # Another per-token figure 161 KiB: 160 KiB is within 1% of it (close), and exactly the
    # flagship's missing-V number. The mistake is named.
    other = KeyFigure(
        "other", "Another model's KV per token", BYTES, "token", Fraction(161 * 1024), None, "KiB"
    )
    number = only("160 KiB per token", [other, per_token])
    assert number.figure.id == "kv-per-token" and number.mistake.id == "forgot-k-and-v"
    assert only("161 KiB per token", [other, per_token]).verdict == CORRECT


def test_rounded_figures_and_units_that_convert(content_store: ContentStore) -> None:
    figs = figures(content_store, FLAGSHIP)
    budget = next(f for f in figs if f.id == "kv-budget-per-gpu").value / (1 << 30)
    by_id = {
        n.figure.id: n.verdict
        for n in check_numbers(
            f"10 GiB per session, 10,737,418,240 bytes; {float(budget):.1f} GiB left per GPU; "
            "327680 B/token",
            figs,
        ).numbers
    }
    assert by_id == {
        "kv-per-session": CORRECT,
        "kv-budget-per-gpu": CORRECT,
        "kv-per-token": CORRECT,
    }
    coarse = only("about 100 GiB left for cache", figs)
    assert coarse.verdict != CORRECT  # the budget does not round to 100 at three digits
    assert only(f"the budget is {round(budget)} GiB", figs).verdict == CORRECT
    whole_gpu = size(
        load_preset("llama-3.1-70b"),
        SizingRequest(gpu="H200", gpus=8, tp=8, context=32768, gpu_util=1.0),
    ).max_concurrency
    assert only(f"{whole_gpu} sessions", figs).mistake.id == "gpu-util-ignored"


def test_it_says_it_reads_numbers_only() -> None:
    from app.attempt_checks import READS_NUMBERS_ONLY

    assert "numbers" in READS_NUMBERS_ONLY and "reasoning" in READS_NUMBERS_ONLY


@pytest.mark.parametrize("slug", OTHERS)
def test_every_classic_mistake_of_three_more_questions_is_named(
    content_store: ContentStore, slug: str
) -> None:
    """Attempts written from the drills' own mistake machinery, checked as the page checks them
    (the question's prompt, labels and worked answer included): each number is a classic
    mistake's value for one key figure, and the check names that mistake — unless the number is
    the correct value of another key figure of the question, which wins, or a number the
    question itself gives (a setup's 5 GiB reserve that is also half a 10 GiB session), which
    cannot be told from the mistake and is set aside, saying so."""
    question = content_store.question_by_slug[slug]
    figs = figures(content_store, slug)
    givens = find_givens(f"{question_prompt(question)}\n" + "\n".join(f.label for f in figs))
    named = 0
    for figure in figs:
        for mistake in figure_mistakes(figure):
            value = mistake.value
            assert not isinstance(value, tuple)
            text = written(value, figure)
            (number,) = check_question(question, f"My estimate is {text}.").numbers
            correct_elsewhere = [
                other.id
                for other in figs
                if other.dimension == figure.dimension
                and grade_against(other.value, [], tolerance_of(other), value).verdict == CORRECT
            ]
            if correct_elsewhere:
                assert number.verdict == CORRECT and number.figure.id in correct_elsewhere
                continue
            if any(value in {v for v, _ in given.readings} for given in givens):
                assert number.aside == GIVEN and "given in the question" in describe(number)
                continue
            assert number.mistake is not None, f"{slug}: {text} for {figure.id}"
            assert (number.figure.id, number.mistake.id) == (figure.id, mistake.id), text
            assert text in describe(number)
            named += 1
    assert named >= 3, f"{slug}: only {named} mistakes named"


def written(value: Fraction, figure: KeyFigure) -> str:
    """A mistake's value as a candidate might write it, in the figure's kind."""
    if figure.dimension == BYTES:
        return f"{round(value):,} B" + (" per token" if figure.per == "token" else "")
    if figure.dimension == SECONDS:
        return f"{float(value) * 1000:.2f} ms"
    if figure.dimension == COUNT:
        return f"{round(value):,} {figure.count_of[0]}"
    return f"{float(value):,.0f} tokens/s"


def test_every_key_figures_mistakes_can_be_sized(content_store: ContentStore) -> None:
    """What `prefill content check` runs: no key figure of the content breaks the page."""
    from app.attempt_checks.check import key_figure_problems

    assert key_figure_problems(content_store.questions) == []
    broken = KeyFigure(
        "broken",
        "A setup no mistake can size",
        BYTES,
        None,
        Fraction(1),
        None,
        None,
        {"model": "llama-3.1-70b", "field": "kv_bytes_per_token", "tp": "3"},
    )
    question = content_store.question_by_slug[FLAGSHIP]
    question.practice.checks.append(broken)
    try:
        (problem,) = key_figure_problems([question])
    finally:
        question.practice.checks.pop()
    assert problem.field == "checks.broken" and "cannot be sized" in problem.message


def test_a_figure_whose_own_value_does_not_read_back_is_a_content_error(
    content_store: ContentStore,
) -> None:
    """The content check writes every figure as the page shows it and reads it back: a figure
    an attempt could never state correctly is refused before it reaches a page."""
    from app.attempt_checks.check import key_figure_problems

    nothing_counted = KeyFigure(
        "bare", "A count of nothing said", COUNT, None, Fraction(8), None, None
    )
    shown_per_token = KeyFigure(
        "per-token",
        "Bytes per token",
        BYTES,
        "token",
        Fraction(16 * 1024),
        Fraction(0),
        "KiB/token",
    )
    question = content_store.question_by_slug[FLAGSHIP]
    checks = question.practice.checks
    question.practice.checks = [nothing_counted, shown_per_token]
    try:
        (problem,) = key_figure_problems([question])
    finally:
        question.practice.checks = checks
    assert problem.field == "checks.bare"
    assert "its own value as the page shows it (“8”) is not read as an attempt at it" in (
        problem.message
    )


def test_a_total_for_sessions_the_attempt_counts_is_not_a_wrong_session(
    content_store: ContentStore,
) -> None:
    """8 × 10 GiB is also the attention-heads mistake for one session (8 × too many heads); with
    "8 users" in the attempt, 80 GiB is read as their total and set aside, not graded wrong."""
    figs = figures(content_store, FLAGSHIP)
    numbers = check_numbers("With 8 users at 32K that's 80 GiB of cache.", figs).numbers
    total = next(n for n in numbers if n.text == "80 GiB")
    assert (total.figure, total.verdict, total.aside) == (None, None, TOTAL)
    assert "it is 8 × 10 GiB, a total for the 8 sequences" in describe(total)
    alone = only("One 32K session holds 80 GiB.", figs)
    assert (alone.verdict, alone.mistake.id) == ("wrong", "attention-heads")
    unrelated = check_numbers("Across 3 sessions that is 80 GiB.", figs).numbers
    assert next(n for n in unrelated if n.text == "80 GiB").verdict == "wrong"
