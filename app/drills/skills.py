"""The skills, and ``generate(skill, seed)``: the same seed always gives the same drill."""

from __future__ import annotations

from random import Random

from . import capacity, gpu_count, memory, network, planner, serving_time, weights
from .common import IllPosed
from .model import EXACT, EXACT_COUNT, EXACT_LIST, Drill, Skill

MAX_SEED = 2**31 - 1
MAX_DRAWS = 200
MIXED = "mixed"

SKILLS: dict[str, Skill] = {
    skill.id: skill
    for skill in (
        Skill(
            "kv-bytes-per-token",
            "KV bytes per token",
            "What one token adds to the cache: GQA, MLA latents, sliding windows.",
            EXACT,
            memory.kv_bytes_per_token,
            "memory",
        ),
        Skill(
            "kv-per-sequence",
            "KV per sequence at a context",
            "One sequence's cache at a context length, in total or per GPU under TP.",
            EXACT,
            memory.kv_per_sequence,
            "memory",
        ),
        Skill(
            "weight-memory",
            "Weight memory at a precision",
            "Weights in bf16, fp8, int4 or as the checkpoint ships, in total or per GPU.",
            weights.WEIGHT_TOLERANCE,
            weights.weight_memory,
            "memory",
        ),
        Skill(
            "kv-capacity",
            "KV capacity in tokens",
            "How many tokens of cache one replica holds after weights and reserve.",
            capacity.CAPACITY_TOLERANCE,
            capacity.kv_capacity,
            "memory",
        ),
        Skill(
            "max-concurrency",
            "Max concurrency on N GPUs",
            "Concurrent sequences at a context across replicas.",
            EXACT_COUNT,
            capacity.max_concurrency,
            "memory",
        ),
        Skill(
            "min-gpus",
            "Minimum GPUs",
            "The smallest legal TP replica that serves a load.",
            EXACT_LIST,
            gpu_count.min_gpus,
            "memory",
        ),
        Skill(
            "tp-degrees",
            "Legal TP degrees",
            "Which tensor-parallel degrees the heads allow.",
            EXACT_LIST,
            gpu_count.tp_degrees,
            "memory",
        ),
        Skill(
            "decode-step",
            "Decode step time and tokens/s",
            "TPOT and throughput from bytes read per step and the bandwidth reached.",
            serving_time.DECODE_TOLERANCE,
            serving_time.decode_step,
            "time",
        ),
        Skill(
            "prefill-time",
            "Prefill time / TTFT",
            "Time to first token from the prompt's FLOPs and the compute reached.",
            serving_time.PREFILL_TOLERANCE,
            serving_time.prefill_time,
            "time",
        ),
        Skill(
            "planner-gpus",
            "GPUs for a traffic at latency targets",
            "How many GPUs serve a request rate within TTFT and TPOT targets: the planner's count.",
            planner.PLANNER_TOLERANCE,
            planner.planner_gpus,
            "time",
        ),
        Skill(
            "all-reduce-time",
            "All-reduce time",
            "A ring all-reduce over NVLink or InfiniBand.",
            network.ALL_REDUCE_TOLERANCE,
            network.all_reduce_time,
            "time",
        ),
        Skill(
            "training-time",
            "Training time at an MFU",
            "6·N·D FLOPs over a cluster at a given MFU.",
            network.TRAINING_TOLERANCE,
            network.training_time,
            "time",
        ),
    )
}


class UnknownSkill(LookupError):
    def __init__(self, skill: str) -> None:
        super().__init__(skill)
        self.message = f"There is no drill skill “{skill[:40]}”. Skills: {', '.join(SKILLS)}."


def get_skill(skill_id: str) -> Skill:
    skill = SKILLS.get(skill_id)
    if skill is None:
        raise UnknownSkill(skill_id)
    return skill


def generate(skill_id: str, seed: int) -> Drill:
    """The drill for (skill, seed): redraw from the same stream until the setup is well posed."""
    skill = get_skill(skill_id)
    rng = Random(f"{skill_id}:{seed}")
    for _ in range(MAX_DRAWS):
        try:
            return skill.generate(rng, seed)
        except IllPosed:
            continue
    raise RuntimeError(f"no well-posed {skill_id} drill in {MAX_DRAWS} draws for seed {seed}")


def mixed_pick(seed: int) -> tuple[str, int]:
    """A skill and that skill's seed for a "mixed" seed."""
    rng = Random(f"{MIXED}:{seed}")
    skills = list(SKILLS)
    return skills[rng.randrange(len(skills))], rng.randrange(MAX_SEED + 1)
