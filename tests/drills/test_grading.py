"""Grading: exact where a formula gives bytes, a band for estimates, classic mistakes named
before the close band is considered."""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.drills import CLOSE, CORRECT, WRONG, generate, grade
from app.drills.units import AnswerError

GIB = 1 << 30


def find(skill: str, test, limit: int = 2000):  # type: ignore[no-untyped-def]
    for seed in range(limit):
        drill = generate(skill, seed)
        if test(drill):
            return drill
    raise AssertionError(f"no {skill} drill matched in {limit} seeds")


def test_exact_bytes_in_any_unit_that_converts() -> None:
    drill = find("kv-bytes-per-token", lambda d: d.model == "llama-3.1-8b" and "bf16" in d.prompt)
    assert drill.expected == 131072
    for text in ("131072", "131,072 B/token", "128 KiB", "0.125 MiB", "1.31072e5"):
        assert grade(drill, text).verdict == CORRECT, text
    assert grade(drill, "128.5 KiB").verdict == CLOSE
    wrong = grade(drill, "100 KiB")
    assert wrong.verdict == WRONG and wrong.mistake is None


def test_attention_heads_instead_of_kv_heads_is_named_with_the_numbers() -> None:
    drill = find("kv-bytes-per-token", lambda d: d.model == "llama-3.1-8b" and "bf16" in d.prompt)
    verdict = grade(drill, "512 KiB")
    assert verdict.verdict == WRONG
    assert verdict.mistake is not None and verdict.mistake.id == "attention-heads"
    assert "You used 32 attention heads; the cache holds 8 KV heads" in verdict.mistake.explanation
    assert grade(drill, "64 KiB").mistake.id == "forgot-k-and-v"  # type: ignore[union-attr]


def test_gb_read_as_gib_is_named_not_graded_close() -> None:
    drill = find(
        "kv-per-sequence",
        lambda d: any(m.id == "gb-read-as-gib" for m in d.mistakes) and d.expected > 4 * GIB,
    )
    in_gib = float(Fraction(drill.expected) / GIB)
    verdict = grade(drill, f"{in_gib:.2f} GB")
    assert verdict.verdict == WRONG
    assert verdict.mistake is not None and verdict.mistake.id == "gb-read-as-gib"
    assert grade(drill, f"{in_gib:.4f} GiB").verdict in (CORRECT, CLOSE)


def test_mb_read_as_mib_below_a_gib() -> None:
    drill = find(
        "kv-per-sequence",
        lambda d: any(m.id == "gb-read-as-gib" for m in d.mistakes) and d.expected < GIB // 4,
    )
    in_mib = float(Fraction(drill.expected) / (1 << 20))
    verdict = grade(drill, f"{in_mib:.2f} MB")
    assert verdict.mistake is not None and verdict.mistake.name == "MB read as MiB"


def test_mla_latent_divided_by_tp_is_named() -> None:
    drill = find("kv-per-sequence", lambda d: "tp" in d.inputs and "kv_lora_rank" in d.inputs)
    mistake = next(m for m in drill.mistakes if m.id == "tp-divides-mla-latent")
    verdict = grade(drill, str(int(mistake.value)))
    assert verdict.mistake == mistake
    assert "replicated on every TP rank" in mistake.explanation


def test_windows_ignored_is_named() -> None:
    drill = find("kv-per-sequence", lambda d: any(m.id == "windows-ignored" for m in d.mistakes))
    mistake = next(m for m in drill.mistakes if m.id == "windows-ignored")
    assert grade(drill, str(int(mistake.value))).mistake == mistake


def test_band_skills_grade_within_their_stated_band() -> None:
    drill = generate("all-reduce-time", 7)
    ms = float(drill.expected) * 1000
    assert grade(drill, f"{ms * 1.02:.6g} ms").verdict == CORRECT
    assert grade(drill, f"{ms / 1000 * 1.02:.6g} s").verdict == CORRECT
    mistaken = {round(float(m.value) * 1000, 9) for m in drill.mistakes}
    far = ms * 1.08
    if all(abs(far - v) > 0.04 * v for v in mistaken):
        assert grade(drill, f"{far:.6g}").verdict == CLOSE
    assert grade(drill, f"{ms * 3:.6g}").verdict == WRONG


def test_tp_degrees_is_a_set() -> None:
    drill = find("tp-degrees", lambda d: d.model == "qwen2.5-7b" and d.inputs["gpus"] == 8)
    assert drill.expected == (1, 2, 4)
    assert grade(drill, "4, 2, 1").verdict == CORRECT
    heads_only = grade(drill, "1, 2, 4, 7")
    assert heads_only.mistake is not None and heads_only.mistake.id == "heads-only"
    assert "4 KV heads" in heads_only.mistake.explanation


def test_unreadable_answers_raise_with_a_message() -> None:
    drill = generate("kv-capacity", 1)
    with pytest.raises(AnswerError, match="unit of size or time"):
        grade(drill, "12 GB")


def test_of_two_mistakes_near_an_answer_the_nearer_is_named():
    """Leaving out DeepSeek-V3.2's RoPE key or its indexer key costs almost the same bytes: an
    answer is named after the mistake it is nearer, whatever their order."""
    from app.drills.grading import grade_against
    from app.drills.model import Mistake, Tolerance

    rope = Mistake("mla-rope-forgotten", "the RoPE key left out", "", 62_464)
    indexer = Mistake("indexer-forgotten", "the indexer cache left out", "", 62_708)
    tolerance = Tolerance(True, Fraction(0), Fraction(1, 10), Fraction(1, 100))
    for order in ([rope, indexer], [indexer, rope]):
        assert grade_against(70_000, order, tolerance, 62_708).mistake is indexer
        assert grade_against(70_000, order, tolerance, 62_464).mistake is rope
    # Two mistakes with the same value: the first listed, as before.
    twin = Mistake("twin", "the same bytes another way", "", 62_464)
    assert grade_against(70_000, [twin, rope], tolerance, 62_464).mistake is twin
