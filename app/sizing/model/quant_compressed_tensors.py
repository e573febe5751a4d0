"""compressed-tensors (llm-compressor) checkpoints: each config group's weight scheme, matched to
the modules its targets name."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .precision import Quantization, Scheme, head_listed
from .quant_fields import config_int, config_strings


def compressed_tensors(config: Mapping[str, Any]) -> Quantization | None:
    groups = config.get("config_groups")
    if not isinstance(groups, Mapping) or not groups:
        return None
    skip = config_strings(config, "ignore")
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
        quantize_lm_head=default is not None and not head_listed(skip),
    )


def _ct_scheme(weights: Mapping[str, Any], fmt: str) -> Scheme:
    bits = config_int(weights, "num_bits", 8)
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
    if strategy == "channel":  # vLLM holds the scales in fp32 (ChannelQuantScaleParameter)
        return Scheme(
            f"{name}, an fp32 scale per output channel", bits, 4, (1, 0), zero_bits=zero_bits
        )
    return Scheme(f"{name}, a per-tensor scale", bits, per_tensor_bytes=4)


def _family(scheme: Scheme) -> str:
    if scheme.label.startswith("nvfp4"):
        return "nvfp4"
    if scheme.label.startswith("fp8"):
        return "fp8"
    return scheme.label.split(",")[0]
