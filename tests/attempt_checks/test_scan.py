"""Reading an attempt's numbers: units, what a count counts, multipliers, and the prompt's own
numbers (adjectives included)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.attempt_checks.scan import find_givens, find_numbers
from app.drills.units import BYTES, COUNT, RATE, SECONDS


def test_what_is_read_and_what_is_not() -> None:
    text = (
        "Llama 3.1 70B on 8×H200 at TP8 reads 4.8 TB/s; 2 × 80 × 8 × 128 × 2 B = 320 KiB. "
        "A 32K-token session, 400 Gb links, 92% utilisation, 80 layers, 2.8M tokens, "
        "1,200 tokens/s, a 25 ms step, 16 H100s and 85 concurrent sessions; 1T, 5 m, 405B."
    )
    read = [(n.text, n.dimension, n.noun) for n in find_numbers(text)]
    assert read == [
        ("8×H200", COUNT, "GPUs"),
        ("320 KiB", BYTES, None),
        ("80 layers", COUNT, "layers"),  # read; graded only where a figure counts layers
        ("2.8M tokens", COUNT, "tokens"),
        ("1,200 tokens/s", RATE, None),
        ("25 ms", SECONDS, None),
        ("16 H100s", COUNT, "GPUs"),
        ("85 concurrent sessions", COUNT, "sequences"),
    ]


@pytest.mark.parametrize(
    ("text", "noun", "values"),
    [
        ("62.9M tokens", "tokens", (62_900_000, 62.9 * 2**20)),
        ("70.55B parameters", "parameters", (70_550_000_000,)),
        ("1.2 billion", None, (1_200_000_000,)),
        ("15 trillion tokens", "tokens", (15 * 10**12,)),
        ("3.5k tokens", "tokens", (3_500, 3_584)),
        ("120K tokens", "tokens", (120_000, 122_880)),
        ("32K", None, (32_000, 32_768)),  # a count that does not say of what
        ("1.2K sessions", "sequences", (1_200,)),  # K is 1,024-based only on tokens
        ("2,048 requests", "sequences", (2_048,)),
        ("300 streams", "sequences", (300,)),
        ("12 tok", None, ()),  # singular after a number above one: a length, not a count
    ],
)
def test_multipliers_and_nouns(text: str, noun: str | None, values: tuple[float, ...]) -> None:
    found = find_numbers(f"That is {text} in all.")
    if not values:
        assert found == []
        return
    (number,) = found
    assert number.dimension == COUNT and number.noun == noun
    assert [float(value) for value, _ in number.readings] == [float(v) for v in values]


def test_a_count_per_something() -> None:
    (number,) = find_numbers("8,192 registers per warp")
    assert (number.noun, number.per, number.value) == ("registers", "warps", 8192)
    (number,) = find_numbers("1,024 tokens per GPU")
    assert (number.noun, number.per) == ("tokens", "GPUs")


def test_a_size_per_something_a_figure_is_not() -> None:
    per_token, per_layer, per_gpu = find_numbers(
        "320 KiB per token, 4,096 bytes per layer, 40 GiB per GPU"
    )
    assert per_token.per == "token" and per_layer.per == "layer"
    assert per_gpu.per is None and per_gpu.value == 40 << 30  # per GPU: a size like any other


def test_the_prompts_own_numbers_adjectives_included() -> None:
    prompt = (
        "A 2,048-GPU training job has hung for 20 minutes; a 90-request burst of 6,144-token "
        "prompts hits 2-3 replicas at 32K-token context."
    )
    givens = {(n.dimension, n.noun, tuple(v for v, _ in n.readings)) for n in find_givens(prompt)}
    assert givens == {
        (COUNT, "GPUs", (2048,)),
        (SECONDS, None, (1200,)),
        (COUNT, "sequences", (90,)),
        (COUNT, "tokens", (6144,)),
        (COUNT, "tokens", (32_000, 32_768)),
        (COUNT, "replicas", (3,)),  # a range's second half
    }
    # In an attempt, "2,048-GPU" and "6,144-token" are adjectives, not read.
    assert [n.text for n in find_numbers(prompt)] == ["20 minutes", "3 replicas"]
    assert find_numbers("hung for 20 minutes")[0].value == Fraction(1200)
    assert find_numbers("a 20-minute hang") == []


def test_an_exponent_past_thirty_is_not_read() -> None:
    assert find_numbers("1e9999999 tokens and 3e31 GiB") == []
    (number,) = find_numbers("1e30 tokens")
    assert number.readings[0][0] == 10**30
