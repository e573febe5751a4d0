"""Every worked solution labels its terms: each number in a sum or product says what it is
(“78 layers × 788 B per token per layer”), and each result carries its unit. The issue's GLM-5
solution read “512 + 16 + 128 + 128 + 4 = 788 B per token”: bare terms, and the wrong unit."""

from __future__ import annotations

import re

import pytest

from app.drills import SKILLS, generate

SEEDS = range(120)
# A number followed straight by an operator: "512 + 16", "⌈80,296 / 4⌉".
BARE_TERM = re.compile(r"(?<![\w.(/])\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?\s*[×+−/]\s")
# A result with nothing after it: "= 5.368e+14." or "= 2,048)".
UNITLESS = re.compile(r"= (\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?)(?=\s*(?:\)|\.(?!\d)|;|$))")


@pytest.mark.parametrize("skill_id", list(SKILLS))
def test_every_term_of_every_worked_solution_is_labelled(skill_id: str) -> None:
    for seed in SEEDS:
        drill = generate(skill_id, seed)
        for step in drill.solution:
            assert not BARE_TERM.search(step), (f"{skill_id}?seed={seed}", step)
            assert not UNITLESS.search(step), (f"{skill_id}?seed={seed}", step)
        if "kv_cache_layout" in drill.inputs and skill_id != "min-gpus":
            per_layer = [s for s in drill.solution if s.endswith("B per token per layer.")]
            assert per_layer, (f"{skill_id}?seed={seed}", drill.solution)


def test_the_glm5_solution_names_each_byte_and_its_unit() -> None:
    step = generate("kv-per-sequence", 594716525).solution[0]
    for term in (
        "512 B latent (512 kv_lora_rank dims × 1 B fp8)",
        "16 B latent scales (4 × 4 B fp32",
        "128 B RoPE part (64 qk_rope_head_dim dims × 2 B bf16)",
        "128 B indexer key (128 index_head_dim dims × 1 B fp8)",
        "4 B indexer scale (1 × 4 B fp32)",
        "= 788 B per token per layer.",
    ):
        assert term in step, (term, step)
