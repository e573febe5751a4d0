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

Anything else (an unknown method) is sized in bf16 and says so.
"""

from __future__ import annotations

import fnmatch
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import ConfigError
from .linears import EXPERTS, ROUTER, Linear

BF16 = 2
# Regex/wildcard entries in a module list: real configs use a handful (compressed-tensors'
# "re:.*mlp.gate$"); exact names, which can run to thousands, are looked up, not scanned.
MAX_PATTERNS = 64


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
    _skip: Any = field(default=None, compare=False, repr=False)
    _layers: Any = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_skip", _Matcher(tuple((p, None) for p in self.skip)))
        object.__setattr__(self, "_layers", _Matcher(self.layer_schemes))

    def scheme_for(self, linear: Linear) -> Scheme | None:
        """The scheme a matrix is stored in, or None for the model dtype."""
        names = (linear.name, f"{linear.name}.0") if linear.count > 1 else (linear.name,)
        if self.layer_schemes:
            hit = self._layers.first(names)
            if hit is not None:
                return hit[1]
        if self.only_kinds is not None and linear.kind not in self.only_kinds:
            return None
        if self.skip and self._skip.first(names):
            return None
        if not self.skip and linear.kind in self.skip_kinds:
            return None
        return self.scheme

    def describe(self) -> str:
        return f"{self.family} as shipped, from quantization_config ({self.scheme.label})"


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
        if wild > MAX_PATTERNS:
            raise ConfigError(
                f"lists {wild:,} regex or wildcard module patterns; at most {MAX_PATTERNS} are "
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


def fp8_block(rows: int, cols: int) -> Scheme:
    return Scheme(f"fp8 e4m3, one fp32 scale per {rows}×{cols} block", 8, 4, (rows, cols))


MXFP4 = Scheme("mxfp4: 4-bit e2m1, one E8M0 scale per 32", 4, 1, (1, 32))
NVFP4 = Scheme("nvfp4: 4-bit e2m1, one e4m3 scale per 16 plus fp32 tensor scales", 4, 1, (1, 16), 8)


def int_groups(bits: int, group: int, *, zeros: bool, g_idx: bool, scale_bytes: int = 2) -> Scheme:
    cols = None if group in (-1, 0) else group
    what = "per output channel" if cols is None else f"per {cols} inputs"
    label = f"int{bits}, an fp16 scale{' and zero' if zeros else ''} {what}"
    return Scheme(
        label, bits, scale_bytes, (1, cols or 0), zero_bits=bits if zeros else 0, g_idx=g_idx
    )


def read_quantization(config: Mapping[str, Any] | None) -> Quantization | None:
    """A Quantization for a config's ``quantization_config``; None when it has none."""
    if config is None:
        return None
    if not isinstance(config, Mapping):
        raise ConfigError("must be an object", field="quantization_config")
    method = config.get("quant_method")
    if not isinstance(method, str):
        return None
    method = method.lower()
    reader = _READERS.get(method)
    return reader(config) if reader else None


def _strings(config: Mapping[str, Any], *keys: str) -> tuple[str, ...]:
    out: list[str] = []
    for key in keys:
        value = config.get(key)
        if isinstance(value, list):
            out += [v for v in value if isinstance(v, str)]
    return tuple(out)


def _int(config: Mapping[str, Any], key: str, default: int) -> int:
    value = config.get(key, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not -1 <= value <= 1 << 20:
        raise ConfigError(
            f"must be an integer, got {value!r}"[:200], field=f"quantization_config.{key}"
        )
    return value


def _fp8(config: Mapping[str, Any]) -> Quantization:
    block = config.get("weight_block_size")
    skip = _strings(config, "modules_to_not_convert", "ignored_layers", "ignore")
    if block is not None:
        ok = (
            isinstance(block, list)
            and len(block) == 2
            and all(
                isinstance(b, int) and not isinstance(b, bool) and 0 < b <= 1 << 16 for b in block
            )
        )
        if not ok:
            raise ConfigError(
                f"must be two positive integers, got {block!r}"[:200],
                field="quantization_config.weight_block_size",
            )
        scheme = fp8_block(block[0], block[1])
    else:
        scheme = FP8_PER_TENSOR
    return Quantization("fp8", "fp8", scheme, skip)


def _mxfp4(config: Mapping[str, Any]) -> Quantization:
    skip = _strings(config, "modules_to_not_convert", "ignore")
    return Quantization("mxfp4", "mxfp4", MXFP4, skip, only_kinds=frozenset({EXPERTS}))


def _modelopt(config: Mapping[str, Any]) -> Quantization | None:
    inner = (
        config.get("quantization") if isinstance(config.get("quantization"), Mapping) else config
    )
    algo = str(inner.get("quant_algo") or "").upper()
    skip = _strings(inner, "exclude_modules", "ignore")
    layers: list[tuple[str, Scheme | None]] = []
    per_layer = inner.get("quantized_layers")
    if isinstance(per_layer, Mapping):  # MIXED_PRECISION: one algorithm per module
        for name, spec in per_layer.items():
            sub = str(spec.get("quant_algo") or "").upper() if isinstance(spec, Mapping) else ""
            layers.append((str(name), _modelopt_scheme(sub, inner)))
        scheme = (
            FP8_PER_TENSOR if algo in ("", "MIXED_PRECISION") else _modelopt_scheme(algo, inner)
        )
        family = "mixed"
    else:
        scheme = _modelopt_scheme(algo, inner)
        family = "nvfp4" if "NVFP4" in algo else "fp8"
    if scheme is None:
        return None
    return Quantization(
        "modelopt",
        family,
        scheme,
        skip,
        layer_schemes=tuple(layers),
        quantize_lm_head=not any(matches(p, "lm_head") for p in skip),
    )


def _modelopt_scheme(algo: str, config: Mapping[str, Any]) -> Scheme | None:
    if "NVFP4" in algo:
        group = _int(config, "group_size", 16)
        if group == 16:
            return NVFP4
        return Scheme(
            f"nvfp4, one e4m3 scale per {group} plus fp32 tensor scales", 4, 1, (1, group), 8
        )
    if "FP8" in algo:
        return FP8_PER_TENSOR
    return None


def _awq(config: Mapping[str, Any]) -> Quantization:
    bits, group = _int(config, "bits", 4), _int(config, "group_size", 128)
    skip = _strings(config, "modules_to_not_convert")
    zeros = config.get("zero_point", True) is not False
    return Quantization(
        "awq", f"int{bits}", int_groups(bits, group, zeros=zeros, g_idx=False), skip
    )


def _gptq(config: Mapping[str, Any]) -> Quantization:
    bits, group = _int(config, "bits", 4), _int(config, "group_size", 128)
    skip = _strings(config, "modules_to_not_convert")
    dynamic = config.get("dynamic")
    layers: list[tuple[str, Scheme | None]] = []
    if isinstance(dynamic, Mapping):  # GPTQModel: "-:regex" skips a module
        layers += [
            (f"re:{k[2:]}", None) for k in dynamic if isinstance(k, str) and k.startswith("-:")
        ]
    scheme = int_groups(bits, group, zeros=True, g_idx=True)
    return Quantization("gptq", f"int{bits}", scheme, skip, layer_schemes=tuple(layers))


def _compressed_tensors(config: Mapping[str, Any]) -> Quantization | None:
    groups = config.get("config_groups")
    if not isinstance(groups, Mapping) or not groups:
        return None
    skip = _strings(config, "ignore")
    fmt = str(config.get("format") or "")
    layers: list[tuple[str, Scheme | None]] = []
    default: Scheme | None = None
    for group in groups.values():
        if not isinstance(group, Mapping) or not isinstance(group.get("weights"), Mapping):
            continue
        scheme = _ct_scheme(group["weights"], fmt)
        targets = [t for t in group.get("targets") or [] if isinstance(t, str)]
        for target in targets:
            if target in ("Linear", "re:.*"):
                default = default or scheme
            else:
                layers.append((target, scheme))
    if default is None and not layers:
        return None
    scheme = default or layers[0][1]
    assert scheme is not None
    family = _family(scheme)
    return Quantization(
        "compressed-tensors",
        family,
        scheme,
        skip,
        only_kinds=None if default else frozenset(),
        layer_schemes=tuple(layers),
        quantize_lm_head=default is not None and not any(matches(p, "lm_head") for p in skip),
    )


def _ct_scheme(weights: Mapping[str, Any], fmt: str) -> Scheme:
    bits = _int(weights, "num_bits", 8)
    kind = str(weights.get("type") or "int")
    strategy = str(weights.get("strategy") or "tensor")
    group = weights.get("group_size")
    symmetric = weights.get("symmetric", True) is not False
    zero_bits = 0 if symmetric else bits
    if kind == "float" and bits == 4:  # nvfp4 in compressed-tensors: tensor_group of 16
        size = group if isinstance(group, int) and group > 0 else 16
        return Scheme(
            f"nvfp4: 4-bit e2m1, one e4m3 scale per {size} plus an fp32 global scale",
            4,
            1,
            (1, size),
            4,
        )
    name = f"{'fp' if kind == 'float' else 'int'}{bits}"
    if strategy == "block":
        block = weights.get("block_structure") or [128, 128]
        rows, cols = (
            (int(block[0]), int(block[1]))
            if isinstance(block, list) and len(block) == 2
            else (128, 128)
        )
        return Scheme(f"{name}, one scale per {rows}×{cols} block", bits, 4, (rows, cols))
    if strategy == "group" and isinstance(group, int) and group > 0:
        return Scheme(
            f"{name}, a bf16 scale per {group} inputs" + ("" if symmetric else " and a zero"),
            bits,
            2,
            (1, group),
            zero_bits=zero_bits,
        )
    if strategy == "channel":
        return Scheme(f"{name}, a scale per output channel", bits, 2, (1, 0), zero_bits=zero_bits)
    return Scheme(f"{name}, a per-tensor scale", bits, per_tensor_bytes=4)


def _family(scheme: Scheme) -> str:
    if scheme.label.startswith("nvfp4"):
        return "nvfp4"
    if scheme.label.startswith("fp8"):
        return "fp8"
    return scheme.label.split(",")[0]


_READERS = {
    "fp8": _fp8,
    "mxfp4": _mxfp4,
    "modelopt": _modelopt,
    "modelopt_fp4": _modelopt,
    "awq": _awq,
    "gptq": _gptq,
    "compressed-tensors": _compressed_tensors,
}


def shipped_weight_bytes(
    quant: Quantization,
    linears: Iterable[Linear],
    *,
    embedding: int,
    lm_head: tuple[int, int] | None,
    total: int,
) -> int:
    """Bytes of the text model's weights as the checkpoint stores them; ``lm_head`` is the
    untied head's (rows, cols), None when tied."""
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
