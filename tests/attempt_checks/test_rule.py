"""Which figure a number is graded against: only one it is plausibly an attempt at — the same
kind and noun; correct, a classic mistake, close, or the nearest figure within a factor of two
with no better number for it; not a number the question gives; not a contrast with a figure the
attempt already states correctly; not another step the worked answer also takes."""

from __future__ import annotations

from fractions import Fraction

from app.attempt_checks import check_numbers, check_question, describe
from app.attempt_checks.match import ANSWER, GIVEN, STATED
from app.attempt_checks.scan import find_givens
from app.content.key_figures import KeyFigure
from app.content.store import ContentStore
from app.drills.grading import CLOSE, CORRECT, WRONG
from app.drills.units import BYTES, COUNT, SECONDS

FLAGSHIP = "kv-bound-deployment"


def count(figure_id: str, value: int, *nouns: str, tolerance: Fraction | None = None) -> KeyFigure:
    label = f"The {figure_id}"
    return KeyFigure(figure_id, label, COUNT, None, Fraction(value), tolerance, None, {}, nouns)


def seconds(figure_id: str, value: Fraction, tolerance: str = "10") -> KeyFigure:
    band = Fraction(int(tolerance), 100)
    return KeyFigure(figure_id, f"The {figure_id}", SECONDS, None, value, band, None)


def verdicts(text: str, figures: list[KeyFigure], **kwargs) -> list[tuple]:  # type: ignore[no-untyped-def]
    return [
        (n.text, n.figure.id if n.figure else None, n.verdict, n.aside)
        for n in check_numbers(text, figures, **kwargs).numbers
    ]


def test_a_count_is_graded_only_against_a_figure_counting_the_same_thing() -> None:
    tokens_per_gpu = count("tokens-per-gpu", 1024, "tokens")
    ridge = count("ridge", 155, "tokens", tolerance=Fraction(1, 4))
    figures = [tokens_per_gpu, ridge]
    assert verdicts("2,048 sequences and 128 GPUs", figures) == [
        ("2,048 sequences", None, None, None),
        ("128 GPUs", None, None, None),
    ]
    (sequences, _gpus) = check_numbers("2,048 sequences and 128 GPUs", figures).numbers
    assert "no key figure that counts sequences is near it" in describe(sequences)
    assert verdicts("1,536 tokens", figures) == [("1,536 tokens", "tokens-per-gpu", WRONG, None)]
    assert verdicts("150 tokens per step", figures)[0][1:3] == ("ridge", CORRECT)
    # Sessions, requests and streams are sequences.
    sessions = count("sessions", 87, "sequences")
    for text in ("87 sessions", "87 requests", "87 concurrent streams", "87 users"):
        assert verdicts(text, [sessions])[0][2] == CORRECT, text


def test_the_multipliers_and_k_read_both_ways_on_tokens() -> None:
    context = count("context", 32768, "tokens")
    pool = count("pool", 120_000, "tokens")
    binary_pool = count("pool", 122_880, "tokens")
    params = count("params", 70_553_706_496, "parameters")
    assert verdicts("a 32K tokens budget", [context])[0][2] == CORRECT
    assert verdicts("120K tokens", [pool])[0][2] == CORRECT
    assert verdicts("120K tokens", [binary_pool])[0][2] == CORRECT
    assert verdicts("3.5k tokens", [count("prompt", 3500, "tokens")])[0][2] == CORRECT
    assert verdicts("70.55B parameters", [params])[0][2] == CORRECT
    assert verdicts("62.9M tokens a day", [count("day", 62_900_000, "tokens")])[0][2] == CORRECT
    # K on sequences is 1,000-based: 1.25K sessions is 1,250, never 1,280.
    assert verdicts("1.25K sessions", [count("s", 1280, "sequences")])[0][2] == CLOSE


def test_a_count_that_does_not_say_what_it_counts_is_graded_only_when_unambiguous() -> None:
    params = count("params", 1_100_000_000, "parameters")
    tokens = count("tokens", 1_000_000_000, "tokens")
    assert verdicts("about 1.2 billion", [params]) == [
        ("1.2 billion", "params", WRONG, None)
    ]  # the nearest figure, within a factor of two, and the only kind it can be
    assert verdicts("about 1.2 billion", [params, tokens]) == []  # which? left out
    assert verdicts("about 1.1 billion", [params, tokens])[0][1:3] == ("params", CORRECT)
    assert verdicts("62.9M", [params]) == []  # near nothing: left out, nothing to say


def test_within_the_factor_band_only_the_nearest_figure_and_the_nearest_number() -> None:
    step, floor = seconds("step", Fraction(1, 10)), seconds("floor", Fraction(3, 10))
    assert verdicts("150 ms", [step, floor]) == [("150 ms", "step", WRONG, None)]
    assert verdicts("250 ms", [step, floor]) == [("250 ms", "floor", CLOSE, None)]
    assert verdicts("180 ms then 190 ms", [step]) == [
        ("180 ms", "step", WRONG, None),
        ("190 ms", None, None, None),  # another quantity: one number per figure is its attempt
    ]
    assert verdicts("85 ms then 180 ms", [step]) == [
        ("85 ms", "step", CLOSE, None),
        ("180 ms", None, None, None),  # the figure already has a closer attempt
    ]
    assert verdicts("450 ms", [step]) == [("450 ms", None, None, None)]  # beyond the band


def test_a_contrast_with_a_figure_stated_correctly_is_not_graded(
    content_store: ContentStore,
) -> None:
    figures = content_store.question_by_slug[FLAGSHIP].practice.checks or []
    report = check_numbers("320 KiB per token; forgetting V would give 160 KiB per token.", figures)
    right, contrast = report.numbers
    assert (right.figure.id, right.verdict) == ("kv-per-token", CORRECT)
    assert (contrast.figure, contrast.verdict, contrast.aside) == (None, None, STATED)
    message = describe(contrast)
    assert "states that figure correctly (320 KiB) elsewhere" in message
    assert "forgetting the ×2 for K and V" in message
    # Alone, 160 KiB per token is still the missing V.
    (alone,) = check_numbers("160 KiB per token", figures).numbers
    assert (alone.verdict, alone.mistake.id) == (WRONG, "forgot-k-and-v")


def test_the_questions_own_numbers_are_not_graded() -> None:
    """A prompt's times (a 20-minute hang) are the scenario's, not attempts at a duration."""
    interval = seconds("checkpoint-interval", Fraction(30 * 60))
    prompt = "A 2,048-GPU training job has hung for 20 minutes with no error. Triage."
    text = "It has been stuck for 20 minutes."
    # Without the prompt, the hang would be graded as a miss of the interval.
    assert verdicts(text, [interval]) == [("20 minutes", "checkpoint-interval", WRONG, None)]
    assert verdicts(text, [interval], prompt=prompt) == [("20 minutes", None, None, GIVEN)]
    text += " I'd checkpoint every 40 minutes."
    assert verdicts(text, [interval], prompt=prompt) == [
        ("20 minutes", None, None, GIVEN),
        ("40 minutes", "checkpoint-interval", WRONG, None),
    ]
    (given, _) = check_numbers(text, [interval], prompt=prompt).numbers
    assert describe(given) == "“20 minutes” is given in the question itself, so it is not graded."
    # A given that is right for a figure is still right.
    hang = seconds("hang", Fraction(20 * 60))
    assert verdicts("20 minutes", [hang], prompt=prompt)[0][2] == CORRECT
    # The setup a figure's label names is given too: "a 5 GiB reserve".
    budget = KeyFigure(
        "budget",
        "KV budget after weights and a 5 GiB reserve",
        BYTES,
        None,
        Fraction(8 << 30),
        None,
        "GiB",
    )
    assert verdicts("I keep a 5 GiB reserve", [budget])[0][3] == GIVEN


def test_a_number_the_worked_answer_gives_for_another_step_is_not_a_miss() -> None:
    budget = KeyFigure("budget", "KV budget per GPU", BYTES, None, Fraction(107 << 30), None, "GiB")
    answer = find_givens("The weights are 131.4 GiB in bf16, split over eight GPUs.")
    assert verdicts("The weights are 131.4 GiB.", [budget]) == [
        ("131.4 GiB", "budget", WRONG, None)
    ]
    assert verdicts("The weights are 131.4 GiB.", [budget], answer=answer) == [
        ("131.4 GiB", None, None, ANSWER)
    ]
    (number,) = check_numbers("The weights are 131.4 GiB.", [budget], answer=answer).numbers
    assert "the worked answer gives the same number, for another step" in describe(number)


def test_on_a_real_question_the_prompt_and_answer_are_used(content_store: ContentStore) -> None:
    question = content_store.question_by_slug["fp8-int4-or-nvfp4-weights"]
    # "47 sessions" is BF16's count, which the worked answer's table gives; 72 is FP8's figure.
    (bf16,) = check_question(question, "BF16 holds 47 sessions").numbers
    assert (bf16.verdict, bf16.aside, bf16.near.figure.id) == (None, ANSWER, "sessions-fp8")
    report = check_question(question, "from 47 sessions in BF16 to 72 sessions with FP8")
    assert [(n.text, n.verdict, n.aside) for n in report.numbers] == [
        ("47 sessions", None, STATED),
        ("72 sessions", CORRECT, None),
    ]
    (missed,) = check_question(question, "FP8 holds 60 sessions").numbers
    assert (missed.figure.id, missed.verdict) == ("sessions-fp8", WRONG)
