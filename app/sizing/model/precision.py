"""Weight bytes as the checkpoint ships them: its ``quantization_config``, read as the engines do.

Each method stores its matrices narrow, adds scale tensors shaped by the matrix, and leaves some
modules unquantised. Those come from the method's own lists where the config has them
(``ignore``, ``modules_to_not_convert``, ``exclude_modules``, ``ignored_layers``, per-layer maps),
else from the engines' convention for that method:

- ``fp8`` (DeepSeek-V3, Kimi K2, MiMo): every linear layer in e4m3 with, for
  ``weight_block_size [128, 128]``, one fp32 ``weight_scale_inv`` per 128×128 block
  (vllm/model_executor/layers/quantization/fp8.py, ``Fp8LinearMethod.create_weights``). The
  router stays bf16 (vLLM builds DeepSeek's ``gate`` with ``quant_config=None``,
  models/deepseek_v2.py), as do embeddings, LM head and norms, which are not linear layers.
- ``mxfp4`` (gpt-oss): only the MoE experts, 4-bit e2m1 values with one E8M0 scale byte per 32
  (vLLM ``Mxfp4Config`` quantises ``FusedMoE`` only; its linear layers are unquantised).
- ``modelopt``: ``FP8`` per-tensor (a weight and an input scale, fp32, per matrix) or ``NVFP4``
  (4-bit values, one e4m3 scale per 16, a per-tensor fp32 ``weight_scale_2`` and input scale).
- ``awq`` / ``gptq``: packed ``bits``-wide integers, an fp16 scale and a packed zero point per
  ``group_size`` inputs per output (GPTQ also stores a 4-byte ``g_idx`` per input).
- ``compressed-tensors``: each ``config_groups`` entry's ``weights`` (``num_bits``, ``type``,
  ``strategy``, ``group_size``/``block_structure``) on its targets, minus ``ignore``.

Anything else (an unknown method) is sized in bf16 and says so. The per-method readers are in
quant_config.py; this module holds the schemes and the byte count.
"""

from __future__ import annotations

import fnmatch
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from .checkpoint_names import Rename, renamed
from .linears import ROUTER, Linear

if TYPE_CHECKING:
    from .spec import ModelSpec

BF16 = 2
# Regex/wildcard entries in a module list: real configs use a handful (compressed-tensors'
# "re:.*mlp.gate$"); exact names, which can run to thousands, are looked up, not scanned.
MAX_PATTERNS = 64
MAX_SKIP_PATTERNS = 1024  # two per layer for the deepest decoders the core reads


@dataclass(frozen=True, slots=True)
class Scheme:
    """How one matrix is stored: value bits plus its scales and zero points."""

    label: str
    bits: int  # bits per stored value
    scale_bytes: int = 0  # bytes of one scale
    group: tuple[int, int] | None = None  # (rows, cols) one scale covers; None: one per tensor
    per_tensor_bytes: int = 0  # fixed bytes per matrix (per-tensor scales)
    zero_bits: int = 0  # packed zero point per group (asymmetric integers)
    g_idx: bool = False  # GPTQ: a 4-byte group index per input column

    def matrix_bytes(self, rows: int, cols: int) -> int:
        values = math.ceil(rows * cols * self.bits / 8)
        if self.group is None:
            groups = 1 if self.scale_bytes else 0
        else:
            gr, gc = self.group
            groups = math.ceil(rows / (gr or rows)) * math.ceil(cols / (gc or cols))
        extra = groups * self.scale_bytes + math.ceil(groups * self.zero_bits / 8)
        return values + extra + self.per_tensor_bytes + (4 * cols if self.g_idx else 0)


@dataclass(frozen=True, slots=True)
class Quantization:
    method: str  # quant_method as the config writes it
    family: str  # fp8, int8, int4, mxfp4, nvfp4: what a weight_dtype request compares to
    scheme: Scheme  # the default for quantised matrices
    skip: tuple[str, ...] = ()  # module patterns the config lists as unquantised
    skip_kinds: frozenset[str] = frozenset({ROUTER})  # the convention when it lists none
    only_kinds: frozenset[str] | None = None  # mxfp4: only the experts are quantised
    layer_schemes: tuple[tuple[str, Scheme | None], ...] = ()  # per-layer maps
    quantize_lm_head: bool = False
    notes: tuple[str, ...] = field(default=())
    renames: tuple[Rename, ...] = ()  # the family's checkpoint names (checkpoint_names.py)
    _skip: Any = field(default=None, compare=False, repr=False)
    _layers: Any = field(default=None, compare=False, repr=False)
    # shipped_weight_bytes per (matrices, embedding, head, total): a checkpoint's layout is
    # fixed, and sizing asks for it once per tp degree it tries.
    _stored: Any = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_skip", _Matcher(tuple((p, None) for p in self.skip)))
        object.__setattr__(self, "_layers", _Matcher(self.layer_schemes))
        object.__setattr__(self, "_stored", {})

    def scheme_for(self, linear: Linear) -> Scheme | None:
        """The scheme a matrix is stored in, or None for the model dtype."""
        if linear.kind == ROUTER and not linear.router_takes_quant:
            return None  # vLLM builds it unquantised whatever the lists say
        names = _checkpoint_names(linear, self.renames)
        if self.skip and self._skip.first(names):  # an excluded module, as vLLM checks first
            return None
        if self.layer_schemes:
            hit = self._layers.first(names)
            if hit is not None:
                return hit[1]
        if self.only_kinds is not None and linear.kind not in self.only_kinds:
            return None
        if not self.skip and linear.kind in self.skip_kinds:
            return None
        return self.scheme

    def describe(self) -> str:
        label = self.scheme.label
        if self.family == "mixed":  # name each format the lists use
            kinds = {s.label.split(":")[0].split(",")[0] for _, s in self.layer_schemes if s}
            label = "per module: " + ", ".join(sorted(kinds | {label.split(":")[0].split(",")[0]}))
        return f"{self.family} as shipped, from quantization_config ({label})"


# A multimodal checkpoint's language model sits under one of these where the inventory (linears.py)
# writes ``model.``; its quantisation lists name the checkpoint's paths (vLLM maps them through
# each model's ``hf_to_vllm_mapper``).
WRAPPED_PREFIXES = ("model.language_model.", "language_model.model.")


def _checkpoint_names(linear: Linear, renames: tuple[Rename, ...] = ()) -> tuple[str, ...]:
    """The names a checkpoint may give this matrix: its path (and its first expert's,
    ``experts.0.gate_proj``), as the family's files write them, and the same under a multimodal
    wrapper's language-model prefix."""
    own = [linear.name]
    if linear.count > 1:
        parent, _, leaf = linear.name.rpartition(".")
        own.append(f"{parent}.0.{leaf}")
    if renames:
        own += [n for n in (renamed(n, renames) for n in own) if n not in own]
    wrapped = [
        p + n[len("model.") :] for p in WRAPPED_PREFIXES for n in own if n.startswith("model.")
    ]
    return (*own, *wrapped)


# The output head's names: its own, and a multimodal checkpoint's (Kimi-K2.5's quantisation lists
# write "language_model.lm_head"; vLLM's ModelOpt lookup also tries plain "lm_head").
HEAD_NAMES = ("lm_head", "language_model.lm_head", "model.language_model.lm_head")


def head_listed(patterns: Iterable[str]) -> bool:
    """Whether a module list names the output head under any of its names."""
    return head_entry([(p, None) for p in patterns]) is not None


def head_entry(entries: Iterable[tuple[str, Any]]) -> tuple[str, Any] | None:
    """The entry of a module list (or map) that names the output head, if one does."""
    found = tuple(entries)
    return _Matcher(found).first(HEAD_NAMES) if found else None


def matches(pattern: str, name: str) -> bool:
    """A module list entry against a module path, as the engines compare them: ``re:`` regexes
    (compressed-tensors), ``*`` wildcards, or a whole-component substring (transformers'
    ``modules_to_not_convert``: "self_attn" matches every attention module)."""
    return _Matcher(((pattern, None),)).first((name,)) is not None


class _Matcher:
    """Many patterns against many names in linear time: plain entries are looked up by every
    run of whole path components; regexes and wildcards are tried only when present."""

    def __init__(self, entries: tuple[tuple[str, Any], ...]) -> None:
        wild = sum(1 for p, _ in entries if p.startswith("re:") or "*" in p or "?" in p)
        # A skip list is matched as one alternation, so it may be long (ModelOpt writes a
        # wildcard per layer and module); patterns that map to schemes are tried one by one.
        most = MAX_SKIP_PATTERNS if all(v is None for _, v in entries) else MAX_PATTERNS
        if wild > most:
            raise ConfigError(
                f"lists {wild:,} regex or wildcard module patterns; at most {most:,} are "
                "read (module names themselves are not limited)",
                field="quantization_config",
            )
        self.plain: dict[str, tuple[str, Any]] = {}
        self.patterns: list[tuple[re.Pattern[str], tuple[str, Any]]] = []
        for pattern, value in entries:
            if pattern.startswith("re:"):
                try:
                    self.patterns.append((re.compile(pattern[3:]), (pattern, value)))
                except re.error:
                    continue  # an entry no engine could match either
            elif "*" in pattern or "?" in pattern:
                glob = re.compile(fnmatch.translate(pattern))
                self.patterns.append((glob, (pattern, value)))
            else:
                self.plain.setdefault(pattern, (pattern, value))

        if len(self.patterns) > 8 and all(hit[1] is None for _, hit in self.patterns):
            # A long skip list: one alternation instead of a loop over thousands of patterns.
            regexes = [r.pattern for r, hit in self.patterns if hit[0].startswith("re:")]
            globs = [r.pattern for r, hit in self.patterns if not hit[0].startswith("re:")]
            self.patterns = []
            if regexes:
                joined = re.compile("|".join(f"(?:{r})" for r in regexes))
                self.patterns.append((joined, ("re:<list>", None)))
            if globs:
                self.patterns.append((re.compile("|".join(f"(?:{g})" for g in globs)), ("*", None)))

    def first(self, names: Iterable[str]) -> tuple[str, Any] | None:
        for name in names:
            parts = name.split(".")
            for i in range(len(parts)):
                for j in range(i + 1, len(parts) + 1):
                    hit = self.plain.get(".".join(parts[i:j]))
                    if hit is not None:
                        return hit
            for regex, hit in self.patterns:
                if hit[0].startswith("re:"):
                    if regex.match(name):
                        return hit
                elif any(regex.match(".".join(parts[:k])) for k in range(1, len(parts) + 1)):
                    return hit
        return None


FP8_PER_TENSOR = Scheme("fp8 e4m3, per-tensor fp32 scales", 8, per_tensor_bytes=8)
FP8_PER_CHANNEL = Scheme("fp8 e4m3, one fp32 scale per output channel", 8, 4, (1, 0))


def fp8_block(rows: int, cols: int) -> Scheme:
    return Scheme(f"fp8 e4m3, one fp32 scale per {rows}×{cols} block", 8, 4, (rows, cols))


MXFP4 = Scheme("mxfp4: 4-bit e2m1, one E8M0 scale per 32", 4, 1, (1, 32))
MXFP8 = Scheme("mxfp8: 8-bit e4m3, one E8M0 scale per 32", 8, 1, (1, 32))
NVFP4 = Scheme("nvfp4: 4-bit e2m1, one e4m3 scale per 16 plus fp32 tensor scales", 4, 1, (1, 16), 8)


def int_groups(bits: int, group: int, *, zeros: bool, g_idx: bool, scale_bytes: int = 2) -> Scheme:
    cols = None if group in (-1, 0) else group
    what = "per output channel" if cols is None else f"per {cols} inputs"
    label = f"int{bits}, an fp16 scale{' and zero' if zeros else ''} {what}"
    return Scheme(
        label, bits, scale_bytes, (1, cols or 0), zero_bits=bits if zeros else 0, g_idx=g_idx
    )


def shipped_weight_bytes(
    quant: Quantization,
    linears: Iterable[Linear],
    *,
    embedding: int,
    lm_head: tuple[int, int] | None,
    total: int,
) -> int:
    """Bytes of the text model's weights as the checkpoint stores them; ``lm_head`` is the
    untied head's (rows, cols), None when tied. Computed once per layout."""
    linears = tuple(linears)
    key = (linears, embedding, lm_head, total)
    cached = quant._stored.get(id(linears))
    if cached is not None and cached[0] == key:
        return cached[1]
    value = _stored_bytes(quant, linears, embedding=embedding, lm_head=lm_head, total=total)
    quant._stored[id(linears)] = (key, value)
    return value


def checkpoint_bytes(spec: ModelSpec) -> int | None:
    """Bytes of a model's weights in its checkpoint's own layout (``shipped_weight_bytes`` for
    its quantization_config), or None without one or without a matrix inventory."""
    quant, p = spec.quant, spec.params
    if quant is None or not spec.linears:
        return None
    head = (p.lm_head // spec.hidden_size, spec.hidden_size) if p.lm_head else None
    return shipped_weight_bytes(
        quant, spec.linears, embedding=p.embedding, lm_head=head, total=p.total
    )


def _stored_bytes(
    quant: Quantization,
    linears: tuple[Linear, ...],
    *,
    embedding: int,
    lm_head: tuple[int, int] | None,
    total: int,
) -> int:
    stored = 0
    matrix_params = 0
    for linear in linears:
        matrix_params += linear.params
        scheme = quant.scheme_for(linear)
        if scheme is None:
            stored += BF16 * linear.params
        else:
            stored += linear.count * scheme.matrix_bytes(linear.rows, linear.cols)
    head_params = 0
    if lm_head is not None:
        head_params = lm_head[0] * lm_head[1]
        if quant.quantize_lm_head:
            stored += quant.scheme.matrix_bytes(*lm_head)
        else:
            stored += BF16 * head_params
    rest = total - matrix_params - embedding - head_params  # norms, biases, convolutions
    return stored + BF16 * (embedding + max(rest, 0))
