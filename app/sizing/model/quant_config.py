"""Reading a checkpoint's ``quantization_config`` into a ``Quantization``, one reader per method
(the rules each follows are listed in precision.py)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..errors import ConfigError
from .checkpoint_names import CHECKPOINT_RENAMES
from .linears import EXPERTS
from .precision import (
    FP8_PER_CHANNEL,
    FP8_PER_TENSOR,
    MXFP4,
    MXFP8,
    NVFP4,
    Quantization,
    Scheme,
    fp8_block,
    head_entry,
    head_listed,
    int_groups,
)
from .quant_compressed_tensors import compressed_tensors
from .quant_fields import config_int, config_strings

# A ModelOpt export's method, named from its ``quant_algo`` where the config (an
# ``hf_quant_config.json`` placed as quantization_config) names only its producer
# (vLLM ``ModelArchConfigConvertor._normalize_quantization_config``).
MODELOPT_METHODS = {
    "FP8": "modelopt",
    "FP8_PER_CHANNEL_PER_TOKEN": "modelopt",
    "FP8_PB_WO": "modelopt",
    "NVFP4": "modelopt_fp4",
    "MIXED_PRECISION": "modelopt_mixed",
}


def quantization_config_of(wrapper: Mapping[str, Any], text_config: Any = None) -> Any:
    """The quantization config vLLM reads for a checkpoint: ``quantization_config``, else the
    older compressed-tensors key ``compression_config``, else the text model's
    (``text_config``); a ModelOpt producer block names its method."""
    for found in (
        wrapper.get("quantization_config"),
        wrapper.get("compression_config"),
        text_config,
    ):
        if found:
            return _named_method(found)
    return None


def _named_method(config: Any) -> Any:
    if not isinstance(config, Mapping):
        return config  # read_quantization says what is wrong with it
    producer = config.get("producer")
    inner = config.get("quantization")
    legacy = isinstance(inner, Mapping) and "modelopt_quant_config" in inner
    named = isinstance(producer, Mapping) and producer.get("name") == "modelopt"
    if not (named or legacy) or not isinstance(inner, Mapping):
        return config
    algo = inner.get("quant_algo")
    if algo is None:
        return config
    method = MODELOPT_METHODS.get(str(algo).upper())
    if method is None:  # vLLM refuses to load it, with this message
        raise ConfigError(
            f"Unknown ModelOpt quant algo: {algo}"[:200],
            field="quantization_config.quantization.quant_algo",
        )
    return {**config, "quant_method": method}


def read_quantization(
    config: Mapping[str, Any] | None, model_type: str | None = None
) -> Quantization | None:
    """A Quantization for a config's ``quantization_config``; None when it has none.
    ``model_type`` (the text model's) says how the checkpoint's files name its modules."""
    if config is None:
        return None
    if not isinstance(config, Mapping):
        raise ConfigError("must be an object", field="quantization_config")
    method = config.get("quant_method")
    if not isinstance(method, str):
        return None
    method = method.lower()
    reader = _READERS.get(method)
    quant = reader(config) if reader else None
    rules = CHECKPOINT_RENAMES.get(model_type or "")
    return replace(quant, renames=rules) if quant is not None and rules else quant


def _fp8(config: Mapping[str, Any]) -> Quantization:
    block = config.get("weight_block_size")
    skip = config_strings(config, "modules_to_not_convert", "ignored_layers", "ignore")
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


# vLLM 0.34 lists fbgemm_fp8 in DEPRECATED_QUANTIZATION_METHODS: ModelConfig refuses it unless the
# launch sets --allow-deprecated-quantization (vllm/config/model.py, _verify_quantization).
FBGEMM_DEPRECATED = (
    "vLLM 0.34 loads fbgemm_fp8 only with --allow-deprecated-quantization; without it, it stops "
    'with "The quantization method %s is deprecated and will be removed in future versions of '
    'vLLM. To bypass, set `--allow-deprecated-quantization`."'
)


def _fbgemm_fp8(config: Mapping[str, Any]) -> Quantization:
    """Meta's FP8 releases (Llama 3.1 405B Instruct FP8): e4m3 weights with one fp32 scale per
    output channel (vLLM ``FBGEMMFp8LinearMethod``); ``modules_to_not_convert`` stay bf16, and
    only linear layers are quantised (the output head is an embedding-type layer there)."""
    skip = config_strings(config, "modules_to_not_convert")
    return Quantization("fbgemm_fp8", "fp8", FP8_PER_CHANNEL, skip, notes=(FBGEMM_DEPRECATED,))


def _mxfp4(config: Mapping[str, Any]) -> Quantization:
    skip = config_strings(config, "modules_to_not_convert", "ignore")
    return Quantization("mxfp4", "mxfp4", MXFP4, skip, only_kinds=frozenset({EXPERTS}))


def _mxfp8(config: Mapping[str, Any]) -> Quantization | None:
    """MiniMax-style ``quant_method: "mxfp8"`` with ``ignored_layers``: vLLM reads it as ModelOpt
    MXFP8 (``ModelOptMxFp8Config.from_config``), its experts optionally NVFP4."""
    moe = str(config.get("moe_quant_algo") or "").upper()
    return _modelopt(
        {
            "quant_method": "modelopt",
            "quantization": {
                "quant_algo": "MXFP8",
                "exclude_modules": list(config_strings(config, "ignored_layers")),
                "moe_quant_algo": moe or None,
                "group_size": config.get("group_size"),
            },
        }
    )


def _modelopt(config: Mapping[str, Any]) -> Quantization | None:
    inner = (
        config.get("quantization") if isinstance(config.get("quantization"), Mapping) else config
    )
    algo = str(inner.get("quant_algo") or "").upper()
    skip = config_strings(inner, "exclude_modules", "ignore")
    layers: list[tuple[str, Scheme | None]] = []
    moe_algo = str(inner.get("moe_quant_algo") or "").upper()
    if moe_algo:  # the routed experts in their own format
        layers.append((r"re:.*\.experts\..*", _modelopt_scheme(moe_algo, inner)))
    per_layer = inner.get("quantized_layers")
    if isinstance(per_layer, Mapping):  # MIXED_PRECISION: one algorithm per module
        return _modelopt_mixed(per_layer, inner, skip, layers)
    scheme = _modelopt_scheme(algo, inner)
    family = "nvfp4" if "NVFP4" in algo else "fp8"
    if moe_algo and ("NVFP4" in moe_algo) != ("NVFP4" in algo):
        family = "mixed"
    if scheme is None:
        return None
    return Quantization(
        "modelopt",
        family,
        scheme,
        skip,
        layer_schemes=tuple(layers),
        quantize_lm_head=not head_listed(skip),
    )


def _modelopt_mixed(
    per_layer: Mapping[str, Any],
    inner: Mapping[str, Any],
    skip: tuple[str, ...],
    layers: list[tuple[str, Scheme | None]],
) -> Quantization | None:
    """``quantized_layers`` names each quantised module and its algorithm; vLLM leaves every
    module it does not name unquantised, the head included ("Layer not in quantized_layers —
    leave unquantized", ``ModelOptMixedPrecisionConfig.get_quant_method``)."""
    for name, spec in per_layer.items():
        sub = str(spec.get("quant_algo") or "").upper() if isinstance(spec, Mapping) else ""
        layers.append((str(name), _modelopt_scheme(sub, inner)))
    schemes = Counter(s for _, s in layers if s is not None)
    if not schemes:
        return None
    head = head_entry(layers)
    head_scheme = head[1] if head is not None and not head_listed(skip) else None
    return Quantization(
        "modelopt",
        "mixed",
        head_scheme or schemes.most_common(1)[0][0],  # the head's, else the most common
        skip,
        only_kinds=frozenset(),
        layer_schemes=tuple(layers),
        quantize_lm_head=head_scheme is not None,
    )


def _modelopt_scheme(algo: str, config: Mapping[str, Any]) -> Scheme | None:
    if "MXFP8" in algo:
        return MXFP8
    if "NVFP4" in algo:
        group = config_int(config, "group_size", 16)
        if group == 16:
            return NVFP4
        return Scheme(
            f"nvfp4, one e4m3 scale per {group} plus fp32 tensor scales", 4, 1, (1, group), 8
        )
    if "FP8" in algo:
        return FP8_PER_TENSOR
    return None


def _awq(config: Mapping[str, Any]) -> Quantization:
    bits, group = config_int(config, "bits", 4), config_int(config, "group_size", 128)
    skip = config_strings(config, "modules_to_not_convert")
    zeros = config.get("zero_point", True) is not False
    return Quantization(
        "awq", f"int{bits}", int_groups(bits, group, zeros=zeros, g_idx=False), skip
    )


def _gptq(config: Mapping[str, Any]) -> Quantization:
    bits, group = config_int(config, "bits", 4), config_int(config, "group_size", 128)
    skip = config_strings(config, "modules_to_not_convert")
    dynamic = config.get("dynamic")
    layers: list[tuple[str, Scheme | None]] = []
    if isinstance(dynamic, Mapping):  # GPTQModel: "-:regex" skips a module
        layers += [
            (f"re:{k[2:]}", None) for k in dynamic if isinstance(k, str) and k.startswith("-:")
        ]
    scheme = int_groups(bits, group, zeros=True, g_idx=True)
    return Quantization("gptq", f"int{bits}", scheme, skip, layer_schemes=tuple(layers))


_READERS = {
    "fp8": _fp8,
    "mxfp4": _mxfp4,
    "mxfp8": _mxfp8,
    "modelopt": _modelopt,
    "modelopt_fp4": _modelopt,
    "modelopt_mixed": _modelopt,
    "modelopt_mxfp8": _modelopt,
    "awq": _awq,
    "awq_marlin": _awq,  # the same checkpoint format, named for its kernel
    "gptq": _gptq,
    "gptq_marlin": _gptq,
    "compressed-tensors": compressed_tensors,
    "fbgemm_fp8": _fbgemm_fp8,
}
