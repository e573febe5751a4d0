"""``size``: weights, KV per GPU and capacity on a GPU type, per DESIGN.md "Sizing semantics".

Per GPU: usable = ceil(CUDA total × gpu_util) (vLLM ``request_memory``,
vllm/v1/worker/utils.py); KV budget = usable − weights/tp − reserve, or the explicit
``kv_budget_bytes`` (vLLM ``--kv-cache-memory``). A replica is ``tp`` GPUs; replicas = gpus // tp.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from ..catalogue.gpus import GPU, get_gpu
from ..deployment.layout import Layout
from ..deployment.request import MAX_GPUS, SizingRequest
from ..errors import ContextLimitError, IllegalTPError, SizingError
from ..model.dtypes import WEIGHT_DTYPE_BYTES, kv_dtype_bytes
from ..model.linears import MLP, SHARED
from ..model.precision import checkpoint_bytes
from ..model.spec import ModelSpec
from ..model.vllm_quant_methods import VLLM_METHODS
from ..spec_memo import spec_memo
from ..units import fmt_bytes
from .draft import draft_of
from .engine_pool import RULE_ENGINES, engine_pool, memory_engine, share_of
from .engine_weights import engine_weights_per_gpu, reserve_tp
from .engines import ENGINE_RULES, Setup
from .kv import CacheProfile, profile
from .overhead import Overhead, trtllm_overhead, vllm_overhead

AS_SHIPPED = "auto"  # weight_dtype: the precision the checkpoint ships (bf16 when it states none)
FP4_SHIPPED = frozenset({"nvfp4", "mxfp4"})  # asking for fp4 on these sizes the shipped layout


@dataclass(frozen=True, slots=True)
class WeightPlan:
    bytes: int
    precision: str  # bf16, fp16, fp8, int8, int4, mxfp4, nvfp4, ...
    source: str  # where the precision came from, in words


def weight_plan(spec: ModelSpec, weight_dtype: str = AS_SHIPPED) -> WeightPlan:
    """Weight bytes for a request: as the checkpoint ships them by default (its
    quantization_config, else bf16, never fp32 because torch_dtype says so), or in the dtype
    asked. Asking for the family the checkpoint already ships (fp8 on an fp8 checkpoint) sizes
    the shipped layout."""
    quant = spec.quant
    p = spec.params
    shipped_fp4 = weight_dtype == "fp4" and quant is not None and quant.family in FP4_SHIPPED
    if (
        quant is not None
        and spec.linears
        and (weight_dtype in (AS_SHIPPED, quant.family) or shipped_fp4)
    ):
        return WeightPlan(checkpoint_bytes(spec) or 0, quant.family, quant.describe())
    if weight_dtype == AS_SHIPPED:
        if spec.quantization:
            raise unread_quantization(spec.quantization)
        why = (
            "bf16: the checkpoint states no quantization_config (torch_dtype is not used); "
            "a ModelOpt export that keeps it in hf_quant_config.json is read once that "
            "file's object is given as quantization_config, as vLLM places it"
        )
        return WeightPlan(2 * p.total, "bf16", why)
    return WeightPlan(
        uniform_weights_bytes(spec, weight_dtype), weight_dtype, f"{weight_dtype} as asked"
    )


def unread_quantization(method: str) -> SizingError:
    """A shipped quantisation the core cannot size exactly: sizing it as bf16 would overstate the
    weights two- to fourfold, so the request must name the precision it will serve."""
    if method.lower() not in VLLM_METHODS:
        return SizingError(
            f"the checkpoint's quant_method {method!r} is not one vLLM 0.34 loads (it stops with "
            f'"Unknown quantization method: {method}. Must be one of [...]"); choose the weight '
            "precision you will serve it at to size it",
            field="weight_dtype",
        )
    return SizingError(
        f"the checkpoint's quant_method {method!r} is one vLLM loads but the sizing core does not "
        "read, so the shipped weights cannot be sized exactly; choose the weight precision it "
        "ships in (fp8, int8, int4 or fp4) to size it",
        field="weight_dtype",
    )


def uniform_weights_bytes(spec: ModelSpec, weight_dtype: str) -> int:
    """Every parameter in one dtype: fp8, int8 and int4 apply to every parameter except the
    token embedding and an untied output head, which stay bf16."""
    width = WEIGHT_DTYPE_BYTES[weight_dtype]
    p = spec.params
    if width == 2:
        return 2 * p.total
    kept = p.embedding + p.lm_head
    return math.ceil(2 * kept + width * (p.total - kept))


def weights_bytes(spec: ModelSpec, weight_dtype: str = AS_SHIPPED) -> int:
    """Weight bytes of the whole model for a weight_dtype request (see ``weight_plan``)."""
    return weight_plan(spec, weight_dtype).bytes


@spec_memo
def tp_violation(spec: ModelSpec, tp: int) -> str | None:
    """The first head-divisibility rule a tensor-parallel degree breaks, or None if legal."""
    heads = spec.num_attention_heads
    seen: set[tuple[str, int, int]] = set()
    for cls in spec.classes:
        att, st = cls.attention, cls.state
        if att is not None and not att.shared:
            key = ("att", att.num_heads, 0 if att.is_mla else att.num_kv_heads)
            if key not in seen:
                seen.add(key)
                if att.num_heads % tp:
                    return f"num_attention_heads ({att.num_heads}) must be divisible by tp ({tp})"
                kv = att.num_kv_heads
                if not att.is_mla and kv % tp and tp % kv:
                    return (
                        f"the KV heads ({kv}) must divide by tp ({tp}) or tp must be a multiple "
                        f"of them (KV heads are replicated when tp > kv_heads)"
                    )
        if st is not None and ("st", st.heads, st.groups) not in seen:
            seen.add(("st", st.heads, st.groups))
            rule = _state_violation(st.kind, st.heads, st.groups, st.intermediate, tp)
            if rule:
                return rule
    if heads and heads % tp:
        return f"num_attention_heads ({heads}) must be divisible by tp ({tp})"
    return _mlp_violation(spec, tp)


def _mlp_violation(spec: ModelSpec, tp: int) -> str | None:
    # vLLM splits a dense or shared-expert MLP's gate/up output across the ranks with
    # MergedColumnParallelLinear, whose divide() asserts an even split (layers/linear.py).
    for m in spec.linears:
        if m.kind in (MLP, SHARED) and m.name.endswith((".gate_proj", ".up_proj")) and m.rows % tp:
            what = "shared-expert" if m.kind == SHARED else "MLP"
            return (
                f"the {what} intermediate size ({m.rows:,}) must be divisible by tp ({tp}): "
                "the engines split it evenly across ranks"
            )
    return None


def _state_violation(kind: str, heads: int, groups: int, inner: int, tp: int) -> str | None:
    # vllm mamba_mixer2.py / gdn_linear_attn: heads are split across ranks, never replicated.
    if kind == "gated_deltanet" and (heads % tp or groups % tp):
        return (
            f"linear-attention value heads ({heads}) and key heads ({groups}) must be "
            f"divisible by tp ({tp})"
        )
    if kind == "mamba2":
        if heads % tp:
            return f"Mamba-2 heads ({heads}) must be divisible by tp ({tp})"
        if groups % tp and groups != 1:
            return f"Mamba-2 n_groups ({groups}) must be divisible by tp ({tp}) or equal 1"
    if kind in ("kda", "lightning") and heads % tp:
        return f"linear-attention heads ({heads}) must be divisible by tp ({tp})"
    if kind in ("mamba1", "short_conv") and inner % tp:
        return f"Mamba intermediate size ({inner}) must be divisible by tp ({tp})"
    return None


def legal_tp_degrees(spec: ModelSpec, up_to: int) -> list[int]:
    heads = spec.num_attention_heads
    top = min(up_to, heads) if heads else up_to  # attention-free (Mamba): the state's rules only
    return [tp for tp in range(1, top + 1) if tp_violation(spec, tp) is None]


def usable_bytes(gpu: GPU, util: float) -> int:
    return share_of(gpu.memory_bytes, util)


class Replica:
    """One engine instance: ``tp`` GPUs per group, ``pp`` groups (stages), its per-GPU budget and
    cache profile. Under ``dp_attention`` each rank holds every KV head of its own sequences
    (and a full copy of the attention weights), so the replica holds ``tp`` ranks' worth of
    sequences; with ``pp`` stages each GPU holds its stage's share of the layers."""

    def __init__(
        self, spec: ModelSpec, req: SizingRequest, gpu: GPU, tp: int, layout: Layout | None = None
    ) -> None:
        self.tp = tp
        self.pp = layout.pp if layout is not None else 1
        self.dp_attention = layout is not None and layout.dp_attention and tp > 1
        self.plan = weight_plan(spec, req.weight_dtype)
        self.weights = self.plan.bytes
        engine = memory_engine(req)
        # Each engine places the weights its own way (engine_weights.py: attention DP, MLA's
        # decode copies); the engine table shows every engine's pool, so each keeps its figure.
        self.weights_by_engine = {
            name: engine_weights_per_gpu(spec, self.weights, tp, self.pp, self.dp_attention, name)
            for name in RULE_ENGINES
        }
        self.weights_per_gpu = self.weights_by_engine[engine]
        self.spec, self.req, self.gpu = spec, req, gpu
        self._estimate = (spec, gpu, reserve_tp(tp, self.dp_attention, engine))
        self._batch_limits = (req.max_batch, req.max_num_tokens)  # vLLM's, when a launch sets them
        self.eager = req.enforce_eager  # no CUDA graphs captured, none reserved for
        rank_tp = 1 if self.dp_attention else tp
        kv_bytes = kv_dtype_bytes(req.kv_dtype)
        # Speculative decoding's drafter sits beside the target (draft.py).
        self.draft = draft_of(spec, req, self.weights, kv_bytes, rank_tp)
        if self.draft is not None:
            drafter = self.draft.weight_bytes_per_gpu(tp)
            self.weights_per_gpu += drafter
            self.weights_by_engine = {
                name: w + drafter for name, w in self.weights_by_engine.items()
            }
        # The pool under the chosen engine's start-up rule (engine_pool.py): vLLM's unless
        # SGLang or TensorRT-LLM is asked; its reserve is the engine's estimate unless given.
        self.ranks = tp if self.dp_attention else 1  # ranks holding separate sequences
        self.pool = engine_pool(spec, req, gpu, tp, self.weights_per_gpu, self.ranks, self.pp)
        self.usable, self.reserve = self.pool.usable, self.pool.reserve
        if req.kv_budget_bytes is not None:
            self.usable = usable_bytes(gpu, req.gpu_util)
            self.budget = req.kv_budget_bytes
            self.fits_weights = self.weights_per_gpu + self.budget <= gpu.memory_bytes
        else:
            self.budget = self.pool.budget
            self.fits_weights = self.budget > 0
        whole = profile(spec, kv_bytes, rank_tp)
        staged = stage_share(whole, spec.num_layers, self.pp)
        if self.draft is not None:  # its layers sit with the last stage; the drafter reads them
            staged = with_draft(staged, self.draft.token_bytes)
        self.profile: CacheProfile = staged
        self.step_cache = whole  # one rank's cache over the target's layers: what a pass reads

    @property
    def overhead(self) -> Overhead:
        """The reserve's estimate with its formulas (built when a result shows it): TensorRT-LLM's
        when its rule sizes the pool, else vLLM's (SGLang's reserve is a share of the total)."""
        if self.pool.engine == "trtllm":
            return trtllm_overhead(*self._estimate, self.pp, self.eager)
        return vllm_overhead(*self._estimate, *self._batch_limits, self.pp, self.eager)

    def sequences(self, context: int) -> int:
        """Whole sequences of ``context`` tokens one replica holds."""
        per_seq = self.profile.bytes_at(context)
        if not self.fits_weights or self.budget <= 0:
            return 0
        return self.budget // per_seq * self.ranks if per_seq else MAX_SEQUENCES

    def engine_sequences(self, context: int) -> int:
        """Whole sequences of ``context`` tokens one replica holds in the chosen engine's pool, by
        its rule and in its block granularity (``memory/engines.py``), each attention-DP rank
        its own: what a workload on that engine runs. Plain PyTorch, which has no rule, takes
        the exact count (``sequences``)."""
        rule = ENGINE_RULES.get(self.req.engine or "vllm")
        if rule is None or not self.fits_weights:
            return self.sequences(context)
        setup = Setup(
            self.spec,
            self.req,
            self.gpu,
            self.tp,
            context,
            1,
            self.weights_per_gpu,
            self.profile,
            dp_attention=self.dp_attention,
            weights_by_engine=self.weights_by_engine,
            pp=self.pp,
        )
        return int(rule(setup)["sequences_per_replica"]) * self.ranks


def with_draft(cache: CacheProfile, token_bytes: int) -> CacheProfile:
    """The cache with the drafter's full-attention layers added."""
    return CacheProfile(cache.full + token_bytes, cache.windowed, cache.constant)


def stage_share(whole: CacheProfile, layers: int, pp: int) -> CacheProfile:
    """One pipeline stage's cache: the largest stage holds ceil(layers / pp) of the layers
    (vLLM splits layers evenly); every kind is scaled by that share, rounded up."""
    if pp <= 1:
        return whole
    share = Fraction(-(-layers // pp), layers)
    return CacheProfile(
        math.ceil(whole.full * share),
        tuple((w, math.ceil(b * share)) for w, b in whole.windowed),
        math.ceil(whole.constant * share),
    )


MAX_SEQUENCES = 1 << 40


def min_gpus(spec: ModelSpec, req: SizingRequest, gpu: GPU, context: int) -> int | None:
    """Smallest legal tp whose single replica holds ``concurrency`` sequences at ``context``."""
    heads = spec.num_attention_heads
    for tp in range(1, min(heads, MAX_GPUS) + 1):
        if heads % tp or tp_violation(spec, tp) is not None:
            continue
        if Replica(spec, req, gpu, tp).sequences(context) >= req.concurrency:
            return tp
    return None


def resolve(spec: ModelSpec, req: SizingRequest, tp: int | None = None) -> tuple[GPU, int, int]:
    """GPU, tp and context with defaults applied (``tp``: the degree chosen for a blank
    ``req.tp``, else all GPUs); raises IllegalTPError for an illegal tp."""
    gpu = get_gpu(req.gpu)
    tp = req.tp if req.tp is not None else tp if tp is not None else req.gpus
    rule = tp_violation(spec, tp)
    if rule is not None:
        legal = legal_tp_degrees(spec, req.gpus)
        raise IllegalTPError(
            f"tp={tp} is not legal for {spec.name}: {rule}. Legal degrees up to {req.gpus} "
            f"GPUs: {', '.join(map(str, legal)) or 'none'}.",
            field="tp",
        )
    limit = spec.context_limit
    context = req.context if req.context is not None else limit
    if context is None:
        raise SizingError(
            "the config states no max_position_embeddings; give a context length",
            field="context",
        )
    if limit is not None and context > limit:
        raise ContextLimitError(
            f"{context:,} tokens is beyond the model's limit of {limit:,} "
            f"({spec.context_limit_source}); vLLM refuses a --max-model-len above it too",
            field="context",
        )
    return gpu, tp, context


def weights_reason(rep: Replica, gpu: GPU, req: SizingRequest) -> str | None:
    if rep.fits_weights:
        return None
    if req.kv_budget_bytes is not None:
        return (
            f"weights ({fmt_bytes(rep.weights_per_gpu)} per GPU) plus the explicit KV budget "
            f"({fmt_bytes(req.kv_budget_bytes)}) exceed the {fmt_bytes(gpu.memory_bytes)} the "
            "CUDA total"
        )
    if rep.weights_per_gpu > rep.usable:
        return (
            f"weights alone need {fmt_bytes(rep.weights_per_gpu)} per GPU but only "
            f"{fmt_bytes(rep.usable)} is usable ({rep.pool.usable_means})"
        )
    return (
        f"weights ({fmt_bytes(rep.weights_per_gpu)} per GPU) plus the "
        f"{fmt_bytes(rep.reserve)} runtime reserve (activation peak and CUDA graphs) leave no room for KV in the "
        f"{fmt_bytes(rep.usable)} usable per GPU"
    )
