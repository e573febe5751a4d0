"""Every drill can be solved from what it gives: an independent napkin solver per skill reads
only the drill's stated inputs (and its prompt) and must be graded correct.

The solver never opens the preset or calls the sizing core: it knows the textbook formulas
(K and V per KV head, one MLA latent per layer, budget ÷ bytes, 6·N·D, the ring all-reduce) and
takes every engine-specific figure — a storage layout, a state size, a quantised checkpoint's
bytes — only from the drill's own givens. So a drill whose expected answer leans on a quantity
it does not state (GLM-5's fp8_ds_mla cache graded while the prompt said "1 B per element")
fails here, with the skill and seed to reproduce it.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Any

import pytest

from app.drills import SKILLS, generate, get_skill
from app.drills.grading import CORRECT, WRONG, grade, grade_value

SEEDS_PER_SKILL = 300


def stated_figure(layout: str, part: str) -> int | None:
    """A per-layer figure the drill's layout statement gives: "Latent: … = 656 B per token per
    layer"."""
    found = re.search(rf"{part}: [^.]*?= ([\d,]+) B per token per layer", layout)
    return int(found.group(1).replace(",", "")) if found else None


def layer_bytes(i: dict[str, Any], tp: int) -> tuple[int, int]:
    """(full-attention layer, windowed layer) bytes per token on one GPU, from the givens."""
    b = i["kv_dtype_bytes"]
    layout = i.get("kv_cache_layout", "")
    if "kv_lora_rank" in i:  # MLA: one latent per layer, replicated on every TP rank
        latent = stated_figure(layout, "Latent")
        if latent is None:
            latent = (i["kv_lora_rank"] + i["qk_rope_head_dim"]) * b
        indexer = stated_figure(layout, "Indexer")
        if indexer is None:
            indexer = i.get("index_head_dim", 0) * b
        return latent + indexer, latent + indexer
    k = i["head_dim"]
    v = i.get("v_head_dim", k)
    full = max(1, i["num_key_value_heads"] // tp) * (k + v) * b
    swa_k = i.get("swa_head_dim", k)
    swa_v = i.get("swa_v_head_dim", swa_k if "swa_head_dim" in i else v)
    swa_kv = i.get("swa_num_key_value_heads", i["num_key_value_heads"])
    return full, max(1, swa_kv // tp) * (swa_k + swa_v) * b


def layer_counts(i: dict[str, Any]) -> tuple[int, int, int]:
    """(full layers, windowed layers, window) of the layers that hold a per-token cache."""
    layers = i.get("kv_cache_layers", i["num_hidden_layers"])
    windowed = i.get("windowed_layers", 0)
    window = i.get("sliding_window") or i.get("attention_chunk_size") or 0
    return layers - windowed, windowed, window


def per_token(i: dict[str, Any], tp: int = 1, beyond: bool = False) -> int:
    full_b, swa_b = layer_bytes(i, tp)
    full, windowed, _ = layer_counts(i)
    return full * full_b + (0 if beyond else windowed * swa_b)


def state(i: dict[str, Any], tp: int) -> int:
    if tp > 1 and "state_bytes_per_sequence_per_gpu" in i:
        return i["state_bytes_per_sequence_per_gpu"]
    return i.get("state_bytes_per_sequence", 0) // tp


def sequence(i: dict[str, Any], tp: int = 1) -> int:
    full_b, swa_b = layer_bytes(i, tp)
    full, windowed, window = layer_counts(i)
    context = i["context"]
    return (
        full * full_b * context + windowed * swa_b * min(context, window or context) + state(i, tp)
    )


def legal_tps(i: dict[str, Any], up_to: int) -> list[int]:
    heads = i["num_attention_heads"]
    kv = i.get("num_key_value_heads")
    rules = [
        heads,
        *(
            i[k]
            for k in ("linear_num_value_heads", "linear_num_key_heads", "mamba_num_heads")
            if k in i
        ),
    ]
    out = []
    for t in range(1, min(up_to, heads) + 1):
        if any(n % t for n in rules):
            continue
        if kv is not None and kv % t and t % kv:
            continue
        if "n_groups" in i and i["n_groups"] % t and i["n_groups"] != 1:
            continue
        out.append(t)
    return out


def whole(i: dict[str, Any], tp: int) -> int:
    """Bytes a TP rank keeps whole: the replicated matrices, and past the KV-head count one whole
    KV head, (tp − kv) ÷ (tp − 1) of a head's projections beyond an even share."""
    if tp == 1:
        return 0
    if "tp_whole_copy_bytes" in i:  # stated for the drill's own degree
        return i["tp_whole_copy_bytes"]
    kv = i.get("num_key_value_heads")
    heads = i.get("kv_head_projection_bytes", 0)
    extra = round(heads * (tp - kv) / (tp - 1)) if heads and kv and tp > kv else 0
    return i.get("whole_copy_bytes", 0) + extra


def per_gpu_weights(i: dict[str, Any], total: int, tp: int) -> int:
    w = whole(i, tp)
    return w + -(-(total - w) // tp)


def budget(i: dict[str, Any], tp: int) -> int:
    usable = math.ceil(i["gpu_memory_bytes"] * Fraction(str(i["gpu_memory_utilization"])))
    copies = i.get("mla_decode_copies_bytes", 0) // tp  # split with the heads
    return usable - per_gpu_weights(i, i["weights_bytes"], tp) - copies - i["reserve_bytes"]


def weights(i: dict[str, Any]) -> Fraction:
    if "params_quantized" in i:  # as shipped: the quantised matrices at their stated width
        quantised = i["params_quantized"]
        total = Fraction(str(i["quantized_bytes_per_param"])) * quantised
        total += 2 * (i["params_total"] - quantised)
    elif i["weight_dtype"] in ("bf16", "fp16"):
        total = Fraction(2 * i["params_total"])
    else:  # one stated width, the embedding and output head in bf16
        kept = i["params_embedding"] + i["params_lm_head"]
        width = Fraction(str(i.get("weight_bytes_per_param", 0)))
        total = Fraction(math.ceil(2 * kept + width * (i["params_total"] - kept)))
    tp = i.get("tp", 1)
    return Fraction(per_gpu_weights(i, math.ceil(total), tp)) if tp > 1 else total


def solve(drill) -> Any:  # type: ignore[no-untyped-def]
    i, skill = drill.inputs, drill.skill
    if skill == "kv-bytes-per-token":
        return Fraction(per_token(i, beyond="once every sliding window is full" in drill.prompt))
    if skill == "kv-per-sequence":
        return Fraction(sequence(i, i.get("tp", 1)))
    if skill == "weight-memory":
        return weights(i)
    if skill == "kv-capacity":
        tp = i["tp"]
        return Fraction(budget(i, tp) // per_token(i, tp))
    if skill == "max-concurrency":
        tp = i["tp"]
        return Fraction(budget(i, tp) // sequence(i, tp) * (i["gpus"] // tp))
    if skill == "min-gpus":
        for tp in legal_tps(i, 64):
            room = budget(i, tp)
            if room > 0 and room // sequence(i, tp) >= i["concurrency"]:
                return Fraction(tp)
        return None
    if skill == "tp-degrees":
        return tuple(legal_tps(i, i["gpus"]))
    if skill == "decode-step":
        tp, bw = i["tp"], i["hbm_bandwidth_bytes_per_s"]
        kv_gpu = i.get("kv_bytes_per_sequence_per_gpu", i["kv_bytes_per_sequence"] / tp)
        read = i.get("weights_bytes_read_per_step", i["weights_bytes"])
        fixed_ms = i["overhead_ms"] + i.get("communication_ms", 0)
        seconds = (
            read / tp / (bw * i["weight_bandwidth_efficiency"])
            + i["batch"] * kv_gpu / (bw * i["kv_bandwidth_efficiency"])
            + (fixed_ms + i.get("compute_beyond_memory_ms", 0)) / 1000
        )
        step = Fraction(seconds)
        return Fraction(i["batch"]) / step if drill.unit == "tokens/s" else step
    if skill == "prefill-time":
        rate = i["peak_flops_per_gpu"] * i["compute_efficiency"] * i["tp"]
        linear = 2 * i["params_active"] * i["prompt_tokens"] / rate
        return Fraction(linear + i["attention_comm_overhead_ms"] / 1000)
    if skill == "all-reduce-time":
        n = i["ranks"]
        crossing = Fraction(2 * (n - 1), n) * i["payload_bytes"]
        return crossing / (i["bandwidth_bytes_per_s"] * Fraction(str(i["efficiency"])))
    if skill == "training-time":
        flops = 6 * i["params_active"] * i["tokens"]
        rate = Fraction(str(i["mfu"])) * i["peak_bf16_flops_per_gpu"] * i["gpus"]
        return Fraction(flops) / rate
    if skill == "planner-gpus":  # replicas = ⌈rate ÷ what one serves within the targets⌉
        total = 0
        for role in ("aggregated", "prefill", "decode"):
            if f"{role}_gpus_per_replica" in i:
                share = Fraction(i["requests_per_s"]) / Fraction(
                    str(i[f"{role}_requests_per_s_within_targets"])
                )
                total += math.ceil(share) * i[f"{role}_gpus_per_replica"]
        return Fraction(total)
    raise AssertionError(f"no solver for {skill}")


def unsolvable(skill_id: str, seeds: range) -> list[str]:
    tolerance = get_skill(skill_id).tolerance
    bad = []
    for seed in seeds:
        drill = generate(skill_id, seed)
        answer = solve(drill)
        if answer is None or grade_value(drill, tolerance, answer).verdict != CORRECT:
            bad.append(
                f"{skill_id}?seed={seed} ({drill.model}): solved {answer}, graded {drill.expected}"
            )
    return bad


@pytest.mark.parametrize("skill_id", list(SKILLS))
def test_every_drill_is_solvable_from_its_givens(skill_id: str) -> None:
    bad = unsolvable(skill_id, range(SEEDS_PER_SKILL))
    assert not bad, f"{len(bad)} of {SEEDS_PER_SKILL} unsolvable, e.g. " + "; ".join(bad[:5])


def test_the_glm5_fp8_drill_states_its_layout() -> None:
    """The issue's drill: GLM-5, 4,096 tokens, fp8, TP=8 — graded against fp8_ds_mla."""
    drill = generate("kv-per-sequence", 594716525)
    assert drill.model == "glm-5" and drill.inputs["kv_dtype_bytes"] == 1
    assert not unsolvable("kv-per-sequence", range(594716525, 594716526))


def test_plain_one_byte_elements_is_a_named_mistake_that_explains_the_layout() -> None:
    """The first-principles reading of the issue's drill — 512 + 64 + 128 dims at 1 B — is
    graded wrong with the engine's layout explained, not left unnamed."""
    drill = generate("kv-per-sequence", 594716525)
    assert "1 B per element" not in drill.prompt and "fp8_ds_mla" in drill.prompt
    layout = drill.inputs["kv_cache_layout"]
    assert "= 656 B per token per layer" in layout and "= 132 B per token per layer" in layout
    verdict = grade(drill, f"{78 * 4096 * (512 + 64 + 128):,} B")
    assert verdict.verdict == WRONG and verdict.mistake is not None
    assert verdict.mistake.id == "plain-fp8-elements"
    assert "fp8_ds_mla" in verdict.mistake.explanation
    assert "788 B per token per layer" in verdict.mistake.explanation


def test_the_bf16_indexer_reading_is_named_too() -> None:
    seed = next(
        s
        for s in range(2000)
        if (d := generate("kv-bytes-per-token", s)).model == "glm-5"
        and d.inputs["kv_dtype_bytes"] == 2
    )
    drill = generate("kv-bytes-per-token", seed)
    verdict = grade(drill, f"{78 * (512 + 64 + 128) * 2} B/token")
    assert verdict.mistake is not None and verdict.mistake.id == "indexer-at-kv-dtype"
