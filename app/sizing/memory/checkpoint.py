"""A pasted ``model.safetensors.index.json`` cross-checked against the core's weight bytes.

The index's ``metadata.total_size`` is the sum of the checkpoint's tensor bytes (transformers
writes it when it shards a checkpoint): the exact weight bytes of what ships. The difference
from the core's weights as shipped is explained by the parts the core leaves out of the text
model on purpose: multi-token-prediction modules, the embedding and head copies DeepSeek stores
with each MTP module, a head stored although tied, KV-cache scales, and a vision tower. With a
``weight_map`` the tensor names say which of those the checkpoint holds; without one, the
combination that accounts for the difference is chosen. What is left beyond a small tolerance
is flagged as unexplained.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from ..errors import ConfigError
from ..model.spec import ModelSpec
from ..units import fmt_bytes
from .capacity import weight_plan
from .mtp import mtp_bytes

MAX_TOTAL_SIZE = 1 << 50  # a PiB of weights is far beyond any checkpoint
MAX_WEIGHT_MAP = 500_000  # tensor names; DeepSeek-V3 lists about 92,000
BF16 = 2
_VISION = re.compile(
    r"(^|\.)(vision_tower|vision_model|visual|vision_encoder|multi_modal_projector|"
    r"mm_projector|image_newline|audio_tower|audio_model|vision)(\.|$)"
)
_MTP_COPY = re.compile(r"layers\.\d+\.(embed_tokens|shared_head\.head)\.weight$")
_KV_SCALE = re.compile(r"\.(k_scale|v_scale)$")


@dataclass(frozen=True, slots=True)
class CheckpointIndex:
    total_size: int
    names: frozenset[str] | None  # weight_map's tensor names; None when absent or empty

    def compact(self) -> dict[str, Any]:
        """What the cross-check reads: total_size and the tensor names that say which parts
        the checkpoint holds (kept when a pasted config is stored behind a link)."""
        kept = sorted(n for n in self.names or () if _evidence(n))[:2000]
        out: dict[str, Any] = {"metadata": {"total_size": self.total_size}}
        if kept:
            out["weight_map"] = dict.fromkeys(kept, "")
        return out


def _evidence(name: str) -> bool:
    return bool(
        _VISION.search(name)
        or _MTP_COPY.search(name)
        or _KV_SCALE.search(name)
        or name == "lm_head.weight"
    )


def parse_checkpoint_index(raw: Any) -> CheckpointIndex:
    """A decoded index.json → CheckpointIndex. Only ``metadata.total_size`` is required;
    ``weight_map`` may be empty or absent. Errors name the key (field ``index...``)."""
    if not isinstance(raw, dict):
        raise ConfigError("a model.safetensors.index.json is a JSON object", field="index")
    metadata = raw.get("metadata")
    if not isinstance(metadata, dict):
        raise ConfigError("needs a metadata object with total_size", field="index.metadata")
    total = metadata.get("total_size")
    if isinstance(total, float) and total.is_integer():
        total = int(total)
    if isinstance(total, bool) or not isinstance(total, int):
        raise ConfigError("must be a whole number of bytes", field="index.metadata.total_size")
    if not 0 < total <= MAX_TOTAL_SIZE:
        raise ConfigError(
            f"must be between 1 and {MAX_TOTAL_SIZE:,} bytes", field="index.metadata.total_size"
        )
    weight_map = raw.get("weight_map")
    if weight_map is None or weight_map == {}:
        return CheckpointIndex(total, None)
    if not isinstance(weight_map, dict):
        raise ConfigError("must map tensor names to files", field="index.weight_map")
    if len(weight_map) > MAX_WEIGHT_MAP:
        raise ConfigError(f"lists more than {MAX_WEIGHT_MAP:,} tensors", field="index.weight_map")
    names = frozenset(k for k in weight_map if isinstance(k, str) and len(k) <= 500)
    return CheckpointIndex(total, names)


@dataclass(frozen=True, slots=True)
class _Candidate:
    part: str
    bytes: int
    why: str
    evidence: bool | None  # True/False when the weight_map says; None without one


def _is_mtp(name: str, layers: int) -> bool:
    return f"layers.{layers}." in name or name.startswith("mtp.") or ".mtp." in name


def _candidates(spec: ModelSpec, names: frozenset[str] | None) -> list[_Candidate]:
    def seen(pattern: re.Pattern[str] | str) -> bool | None:
        if names is None:
            return None
        if isinstance(pattern, str):
            return pattern in names
        return any(pattern.search(n) for n in names)

    out = []
    h, v = spec.hidden_size, spec.vocab_size
    mtp, modules = mtp_bytes(spec)
    if mtp:
        out.append(
            _Candidate(
                "mtp_layers",
                mtp,
                f"{modules} multi-token-prediction module{'s' if modules != 1 else ''} "
                f"({spec.params.mtp:,} parameters, not in params_total)",
                None if names is None else any(_is_mtp(n, spec.num_layers) for n in names),
            )
        )
        out.append(
            _Candidate(
                "mtp_embedding_and_head_copies",
                modules * 2 * BF16 * v * h,
                "the embedding and output head stored again with each MTP module "
                "(shared at run time)",
                seen(_MTP_COPY),
            )
        )
    if spec.tie_word_embeddings:
        out.append(
            _Candidate(
                "tied_head",
                BF16 * v * h,
                "lm_head.weight stored although tied to the embedding",
                seen("lm_head.weight"),
            )
        )
    attention_layers = sum(1 for lay in spec.layers if lay.attention is not None)
    out.append(
        _Candidate(
            "kv_cache_scales",
            2 * 4 * attention_layers,
            "fp32 k_scale and v_scale per attention layer",
            seen(_KV_SCALE),
        )
    )
    return out


def cross_check(spec: ModelSpec, index: CheckpointIndex) -> dict[str, Any]:
    """The index against the core's weights as shipped: the signed difference, the parts that
    explain it, and whether anything is left unexplained."""
    plan = weight_plan(spec)
    diff = index.total_size - plan.bytes
    tolerance = max(1 << 20, index.total_size // 100_000)
    candidates = _candidates(spec, index.names)
    fixed = [c for c in candidates if c.evidence]
    # Without a weight_map, a part smaller than the tolerance cannot be told from rounding.
    open_ = [c for c in candidates if c.evidence is None and c.bytes > tolerance]
    chosen = list(fixed)
    best = diff - sum(c.bytes for c in fixed)
    for r in range(1, len(open_) + 1):
        for combo in combinations(open_, r):
            rest = diff - sum(c.bytes for c in fixed) - sum(c.bytes for c in combo)
            if abs(rest) < abs(best):
                best, chosen = rest, [*fixed, *combo]
    explained = [{"part": c.part, "bytes": c.bytes, "why": c.why} for c in chosen]
    if best > tolerance and index.names is not None and any(_VISION.search(n) for n in index.names):
        explained.append(
            {
                "part": "vision_tower",
                "bytes": best,
                "why": "the vision tower and projector the weight_map lists (the core sizes the "
                "text model only; attributed the remainder)",
            }
        )
        best = 0
    matches = abs(best) <= tolerance
    flag = None
    if not matches:
        flag = (
            f"{fmt_bytes(abs(best))} ({best:+,} bytes) of the difference is not explained by MTP "
            "modules, stored copies, tied heads, KV scales or a vision tower: the checkpoint may "
            "ship a precision or modules the config does not describe"
            + ("; paste the weight_map to attribute a vision tower" if index.names is None else "")
        )
    return {
        "total_size": index.total_size,
        "weights_bytes": plan.bytes,
        "weights_precision": plan.precision,
        "difference_bytes": diff,
        "explained": explained,
        "explained_bytes": diff - best,
        "unexplained_bytes": best,
        "tolerance_bytes": tolerance,
        "matches": matches,
        "flag": flag,
        "weight_map": index.names is not None,
    }


def index_only(index: CheckpointIndex, reason: str) -> dict[str, Any]:
    """For a family the core refuses: the index still gives the exact weight bytes."""
    return {
        "total_size": index.total_size,
        "weights_bytes": None,
        "difference_bytes": None,
        "explained": [],
        "matches": None,
        "flag": None,
        "note": (
            f"The core does not size this family ({reason}), but the index's total_size is the "
            f"checkpoint's exact weight bytes: {index.total_size:,} ({fmt_bytes(index.total_size)})."
        ),
        "weight_map": index.names is not None,
    }
