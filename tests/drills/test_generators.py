"""Every generated drill is well posed: one answer, the core's, recomputed here from the inputs
the drill shows; its classic mistakes are distinct from the answer and are each named when
typed; the same (skill, seed) gives the same drill."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.drills import MAX_SEED, SKILLS, generate, get_skill, grade, in_unit
from app.drills.common import separated
from app.drills.grading import CORRECT, WRONG, grade_value
from app.sizing import SizingRequest, legal_tp_degrees, load_preset, size, tp_violation
from app.sizing.plan.inputs import PlanRequest
from app.sizing.plan.result import plan
from app.sizing.time.collectives import ring_all_reduce_seconds
from app.sizing.time.training import training_seconds

SEEDS = st.integers(min_value=0, max_value=MAX_SEED)


def _kv(inputs: dict) -> str:  # type: ignore[type-arg]
    return "fp8" if inputs["kv_dtype_bytes"] == 1 else "bf16"


def core_answers(drill) -> set:  # type: ignore[no-untyped-def, type-arg]
    """The answer(s) the core gives for the setup the drill shows (a set: a per-token drill may
    ask for the figure before or after the windows fill, and says which in its prompt)."""
    i = drill.inputs
    if drill.skill == "all-reduce-time":
        return {
            ring_all_reduce_seconds(
                i["payload_bytes"],
                i["ranks"],
                i["bandwidth_bytes_per_s"],
                Fraction(str(i["efficiency"])),
            )
        }
    if drill.skill == "training-time":
        return {
            training_seconds(
                i["params_active"],
                i["tokens"],
                Fraction(str(i["mfu"])),
                i["peak_bf16_flops_per_gpu"],
                i["gpus"],
            )
        }
    if drill.skill == "planner-gpus":  # the planner's own count for the question shown
        request = PlanRequest(
            i["requests_per_s"],
            i["prompt_tokens"],
            i["output_tokens"],
            i["ttft_p90_ms"],
            i["tpot_ms"],
            gpu_types=(i["gpu"],),
        )
        best = plan(load_preset(drill.model), request).best
        return {Fraction(best["gpus"])} if best else set()
    spec = load_preset(drill.model)
    if drill.skill == "decode-step":
        r = size(
            spec,
            SizingRequest(
                gpu=i["gpu"], gpus=i["tp"], tp=i["tp"], context=i["context"], concurrency=i["batch"]
            ),
        )
        step = Fraction(str(r.time["decode_step_ms"])) / 1000
        return {step} if drill.unit == "ms" else {Fraction(str(r.time["tokens_per_s"]))}
    if drill.skill == "prefill-time":
        p = i["prompt_tokens"]
        r = size(
            spec,
            SizingRequest(gpu=i["gpu"], gpus=i["tp"], tp=i["tp"], context=p, prompt_tokens=p),
        )
        return {Fraction(str(r.time["ttft_ms"])) / 1000}
    if drill.skill == "tp-degrees":
        return {tuple(legal_tp_degrees(spec, i["gpus"]))}
    if drill.skill == "kv-bytes-per-token":
        r = size(spec, SizingRequest(kv_dtype=_kv(i), context=1))
        return {r.kv_bytes_per_token, r.kv_bytes_per_token_beyond_window}
    if drill.skill == "kv-per-sequence":
        tp = i.get("tp", 1)
        r = size(spec, SizingRequest(kv_dtype=_kv(i), context=i["context"], gpus=tp, tp=tp))
        return {r.kv_bytes_per_sequence_per_gpu if tp > 1 else r.kv_bytes_per_sequence}
    if drill.skill == "weight-memory":
        tp = i.get("tp", 1)
        request = {"context": 1, "gpus": tp, "tp": tp}
        if "quantization" not in i:
            request["weight_dtype"] = i["weight_dtype"]
        r = size(spec, SizingRequest(**request))
        return {r.weights_bytes_per_gpu if tp > 1 else r.weights_bytes}
    common = {"gpu": i["gpu"], "kv_dtype": _kv(i)}
    if drill.skill == "kv-capacity":
        r = size(spec, SizingRequest(**common, gpus=i["gpus"], tp=i["tp"], context=1))
        return {r.kv_capacity_tokens}
    if drill.skill == "max-concurrency":
        r = size(spec, SizingRequest(**common, gpus=i["gpus"], tp=i["tp"], context=i["context"]))
        return {r.max_concurrency}
    if drill.skill == "min-gpus":
        r = size(
            spec,
            SizingRequest(
                **common,
                context=i["context"],
                concurrency=i["concurrency"],
                reserve_bytes=i["reserve_bytes"],  # the one reserve the drill gives
            ),
        )
        return {r.min_gpus}
    raise AssertionError(f"no check for {drill.skill}")


def check(skill_id: str, seed: int) -> None:
    drill = generate(skill_id, seed)
    assert generate(skill_id, seed) == drill  # a stable URL means a stable drill
    tolerance = get_skill(skill_id).tolerance
    expected = drill.expected
    assert expected in core_answers(drill)
    if isinstance(expected, tuple):
        assert expected and expected[0] == 1
    else:
        assert expected > 0
    # Well posed: a legal TP degree, a context within the model's limit.
    if drill.model and "tp" in drill.inputs:
        assert tp_violation(load_preset(drill.model), drill.inputs["tp"]) is None
    top = load_preset(drill.model).context_limit if drill.model else None
    if "context" in drill.inputs and top:
        assert drill.inputs["context"] <= top
    # The answer, typed as the API reports it, is correct.
    typed = in_unit(drill, expected)
    text = ", ".join(map(str, typed)) if isinstance(typed, list) else repr(typed)
    assert grade(drill, text).verdict == CORRECT, (text, drill.unit)
    # Mistakes: distinct from the answer and each other, each named when its number is given.
    ids = [m.id for m in drill.mistakes]
    assert len(ids) == len(set(ids))
    for mistake in drill.mistakes:
        assert mistake.value != expected
        assert separated(tolerance, expected, mistake.value)
        verdict = grade_value(drill, tolerance, mistake.value)
        assert verdict.verdict == WRONG and verdict.mistake == mistake, (mistake.id, drill)


@pytest.mark.parametrize("skill_id", list(SKILLS))
def test_generated_drills_have_one_answer_and_distinct_mistakes(skill_id: str) -> None:
    @given(seed=SEEDS)
    @settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
    def run(seed: int) -> None:
        check(skill_id, seed)

    run()


def test_every_skill_names_its_classic_mistakes_somewhere() -> None:
    """Across a few hundred seeds each skill produces mistakes to diagnose (not an empty list)."""
    for skill_id in SKILLS:
        named = {m.id for seed in range(150) for m in generate(skill_id, seed).mistakes}
        assert len(named) >= 2, skill_id


def test_the_issue_mistakes_are_all_produced() -> None:
    wanted = {
        "attention-heads",
        "forgot-k-and-v",
        "gb-read-as-gib",
        "per-gpu-vs-total",
        "tp-divides-mla-latent",
        "windows-ignored",
    }
    seen = {
        m.id
        for skill_id in ("kv-bytes-per-token", "kv-per-sequence", "max-concurrency")
        for seed in range(300)
        for m in generate(skill_id, seed).mistakes
    }
    assert wanted <= seen, wanted - seen


def test_same_seed_same_drill_different_seeds_vary() -> None:
    prompts = {generate("kv-per-sequence", seed).prompt for seed in range(40)}
    assert len(prompts) > 20
