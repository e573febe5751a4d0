"""Measure sizing vectors with transformers on PyTorch's meta device (dev-only; not run by tests).

For each config.json: build the text model with ``AutoModelForCausalLM.from_config`` under
``torch.device("meta")`` in bf16 (no memory is allocated), sum ``model.parameters()`` (tied tensors
once; transformers builds no MTP module and the text model has no vision tower), then run forward
passes on meta ``input_ids`` and read every tensor the returned cache holds (keys, values, indexer
keys, convolution and recurrent states). Two passes of 16 and 32 tokens give each layer's per-token
slope and constant; two passes past the largest window give the growth once windows are full.

Usage (inside the ``vectors`` extra's environment, see tests/sizing/vectors/README.md):

    python tools/vectors/measure.py tests/sizing/vectors/configs/Qwen3-8B.json ...
    python tools/vectors/measure.py --all --write     # re-measure every committed config

Prints one vector per config as JSON, in vectors.json's schema; ``--write`` merges them into
tests/sizing/vectors/vectors.json (entries keyed by model name, in config order).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path
from typing import Any

import torch
import torch.fx.experimental._config
import transformers
import transformers.cache_utils
from transformers import AutoModel, AutoModelForCausalLM
from transformers.models.auto.configuration_auto import CONFIG_MAPPING

# MoE dispatch calls torch.nonzero, which has no data-independent meta kernel; the fake value
# assumes every element is non-zero, which changes no parameter and no cache shape.
torch.fx.experimental._config.meta_nonzero_assume_all_nonzero = True

# A cache with only linear-attention / Mamba layers keeps no sequence length (nor mask sizes),
# and transformers raises when the model asks (an all-Mamba default config); every pass here
# starts from an empty cache, so the length is 0 and the mask spans the new tokens only.
_get_seq_length = transformers.cache_utils.Cache.get_seq_length
_get_mask_sizes = transformers.cache_utils.Cache.get_mask_sizes


def _seq_length_or_zero(self: Any, *args: Any, **kwargs: Any) -> int:
    try:
        return _get_seq_length(self, *args, **kwargs)
    except ValueError:
        return 0


def _mask_sizes_or_query(self: Any, query_length: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return _get_mask_sizes(self, query_length, *args, **kwargs)
    except ValueError:
        return query_length, 0


transformers.cache_utils.Cache.get_seq_length = _seq_length_or_zero
transformers.cache_utils.Cache.get_mask_sizes = _mask_sizes_or_query

VECTORS_DIR = Path(__file__).resolve().parents[2] / "tests" / "sizing" / "vectors"
SHORT, LONG = 16, 32
INDEXER_QUANT_BLOCK = 128  # vLLM DeepseekV32IndexerCache: fp8 values + one fp32 scale per 128


def _special_float(obj: dict[str, Any]) -> Any:
    if set(obj) == {"__float__"}:
        return float(obj["__float__"].replace("Infinity", "inf"))
    return obj


def text_config(path: Path) -> tuple[dict[str, Any], Any, str, bool]:
    """The text model's config, the model_type transformers built it as, and whether the whole
    model (the wrapper, for multimodal configs) ties its head to the embeddings.

    A model_type transformers does not know (remote-code checkpoints) is built as the class its
    ``architectures`` names (Kimi K2 ships ``kimi_k2`` with ``DeepseekV3ForCausalLM``, the class
    vLLM loads too), or as its ``text_config``'s own model_type when that one is known.
    """
    # transformers writes inf/nan as {"__float__": "Infinity"} and decodes them when it reads a
    # config file; the configs are built from dicts here, so decode them the same way
    raw = json.loads(path.read_text(), object_hook=_special_float)
    data = {k: v for k, v in raw.items() if k != "quantization_config"}
    model_type = data.pop("model_type", None)
    if model_type in CONFIG_MAPPING:
        config = CONFIG_MAPPING[model_type](**data)
        text = config.get_text_config(decoder=True)
        if text is not config and "text_config" not in data and "hidden_size" in data:
            # a wrapper written flat (Step-3.7's remote-code config.json): its keys are the text
            # model's, as the remote code and the engines read them
            text = type(text)(**data)
        return raw, text, model_type, getattr(config, "tie_word_embeddings", False)
    text = data.get("text_config")
    if isinstance(text, dict) and text.get("model_type") in CONFIG_MAPPING:
        text = dict(text)
        text_type = text.pop("model_type")
        config = CONFIG_MAPPING[text_type](**text)
        return raw, config, text_type, bool(raw.get("tie_word_embeddings", False))
    for arch in data.get("architectures") or []:
        cls = getattr(transformers, arch, None)
        if cls is not None and getattr(cls, "config_class", None) is not None:
            config = cls.config_class(**data)
            text = config.get_text_config(decoder=True)
            return raw, text, config.model_type, getattr(config, "tie_word_embeddings", False)
    raise SystemExit(f"{path}: transformers knows neither model_type {model_type!r} nor its class")


def build(config: Any, wrapper_ties: bool) -> tuple[torch.nn.Module, int]:
    """The causal LM on the meta device, and the parameters of an LM head built apart.

    Some text models have no causal-LM class of their own (Qwen3-VL's text model lives only
    inside its ConditionalGeneration wrapper, whose head is ``Linear(hidden, vocab)`` without
    bias): build the base model and count that head, once, unless the embeddings are tied.
    """
    config._attn_implementation = "eager"
    with torch.device("meta"):
        try:
            return AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16), 0
        except ValueError:
            pass
        try:
            model = AutoModel.from_config(config, dtype=torch.bfloat16)
        except ValueError:  # a text model only its wrapper's module knows (Step-3.7's)
            model = _text_model_class(config)._from_config(config, dtype=torch.bfloat16)
    # the head belongs to the wrapper, so the wrapper's tie_word_embeddings decides (Qwen3-VL-MoE's
    # text config says true, its wrapper false: the ConditionalGeneration model is untied)
    return model, 0 if wrapper_ties else config.vocab_size * config.hidden_size


def _text_model_class(config: Any) -> type:
    """The ``*TextModel`` class in the config class's own modelling module."""
    module = importlib.import_module(
        type(config).__module__.replace(".configuration_", ".modeling_")
    )
    for name in dir(module):
        cls = getattr(module, name)
        if name.endswith("TextModel") and getattr(cls, "config_class", None) is type(config):
            return cls
    raise SystemExit(f"no text model class for {type(config).__name__}")


def _tensors(obj: Any) -> list[tuple[str, torch.Tensor]]:
    """Every tensor one cache layer holds, by attribute name (dicts of states included)."""
    found = []
    for name, value in vars(obj).items():
        if name.startswith("_") or "position" in name or "cumulative_length" in name:
            # the window's own scalar and position bookkeeping are not cache, nor the token
            # count transformers 5.25's linear-attention layers keep in a 0-d tensor
            # (cumulative_length_linear)
            continue
        items = value.values() if isinstance(value, dict) else [value]
        for item in items:
            if isinstance(item, torch.Tensor) and item.numel():
                found.append((name, item))
    return found


def _skip_experts(model: torch.nn.Module) -> None:
    """Routed experts return zeros in the cache passes: their eager loops read which experts a
    token hit (``.item()``, data the meta device does not have), and their output changes no
    cache shape. Parameters are counted before this, from the modules as built."""
    for module in model.modules():
        if type(module).__name__.endswith("Experts"):
            module.forward = lambda hidden_states, *args, **kwargs: torch.zeros_like(hidden_states)


def cache_bytes(model: torch.nn.Module, tokens: int) -> list[dict[str, int]]:
    """Per layer: bytes by tensor kind after one forward pass of ``tokens`` tokens."""
    _skip_experts(model)
    ids = torch.zeros((1, tokens), dtype=torch.long, device="meta")
    with torch.no_grad():
        out = model(input_ids=ids, use_cache=True)
    cache = out.past_key_values
    # MiniMax keeps its lightning-attention states beside the layers, in `linear_cache`
    linear = getattr(cache, "linear_cache", None) or []
    per_layer = []
    for i in range(max(len(cache.layers), len(linear))):
        found = _tensors(cache.layers[i]) if i < len(cache.layers) else []
        if i < len(linear) and isinstance(linear[i], torch.Tensor):
            found.append(("recurrent_states", linear[i]))
        sizes: dict[str, int] = {}
        for name, tensor in found:
            sizes[name] = sizes.get(name, 0) + tensor.numel() * tensor.element_size()
            if name == "recurrent_states":
                sizes["recurrent_elements"] = sizes.get("recurrent_elements", 0) + tensor.numel()
        per_layer.append(sizes)
    return per_layer


def _total(sizes: dict[str, int]) -> int:
    return sum(v for k, v in sizes.items() if k != "recurrent_elements")


def _ranges(indices: list[int]) -> str:
    parts, start = [], None
    for i, idx in enumerate(indices):
        if start is None:
            start = idx
        if i + 1 == len(indices) or indices[i + 1] != idx + 1:
            parts.append(str(start) if start == idx else f"{start}-{idx}")
            start = None
    # vectors.json spells alternating layers one by one, runs as ranges
    return ",".join(parts)


def _windows(config: Any) -> list[int | None]:
    n = config.num_hidden_layers
    types = list(getattr(config, "layer_types", None) or [None] * n)
    sliding = getattr(config, "sliding_window", None)
    chunk = getattr(config, "attention_chunk_size", None)
    out: list[int | None] = []
    for t in types:
        if t == "chunked_attention":
            out.append(chunk)
        elif t == "sliding_attention":
            out.append(sliding)
        elif t is None and sliding and not getattr(config, "layer_types", None):
            out.append(sliding if getattr(config, "use_sliding_window", True) else None)
        else:
            out.append(None)
    return out


def measure(path: Path, name: str | None = None) -> dict[str, Any]:
    raw, config, built_as, wrapper_ties = text_config(path)
    model, head_apart = build(config, wrapper_ties)
    params_total = sum(p.numel() for p in model.parameters()) + head_apart
    embedding = model.get_input_embeddings().weight.numel()
    if head_apart or getattr(model, "lm_head", None) is None:
        tied = not head_apart
    else:
        tied = model.get_output_embeddings().weight is model.get_input_embeddings().weight
    short, long_ = cache_bytes(model, SHORT), cache_bytes(model, LONG)
    windows = _windows(config)
    max_window = max((w for w in windows if w), default=None)
    beyond = None
    if max_window:
        b1, b2 = cache_bytes(model, max_window + SHORT), cache_bytes(model, max_window + LONG)
        beyond = [(_total(y) - _total(x)) // (LONG - SHORT) for x, y in zip(b1, b2, strict=True)]
    types = list(getattr(config, "layer_types", None) or [])
    index_dim = getattr(config, "index_head_dim", None) if hasattr(config, "index_topk") else None

    groups: dict[tuple, list[int]] = {}
    engine_total = measured_total = 0
    state_total = 0
    state_layers = 0
    for i, (s, lo) in enumerate(zip(short, long_, strict=True)):
        slope_num = _total(lo) - _total(s)
        assert slope_num % (LONG - SHORT) == 0, (path, i, s, lo)
        slope = slope_num // (LONG - SHORT)
        # vectors.json records the per-layer constant with the recurrent state in the model
        # dtype (bf16) and state_bytes_per_sequence with it in fp32, as transformers runs it
        recurrent = s.get("recurrent_states", 0)
        constant = _total(s) - SHORT * slope - recurrent + 2 * s.get("recurrent_elements", 0)
        measured_total += slope
        engine = slope
        if index_dim and s.get("indexer_keys"):
            held = (lo["indexer_keys"] - s["indexer_keys"]) // (LONG - SHORT)
            engine = slope - held + index_dim + index_dim // INDEXER_QUANT_BLOCK * 4
        engine_total += engine
        if s.get("conv_states") or s.get("recurrent_states"):
            state_layers += 1
            # transformers' recurrence runs in fp32 on a GPU; meta keeps the model dtype
            state_total += s.get("conv_states", 0) + 4 * s.get("recurrent_elements", 0)
        if slope == 0:
            kind = "constant_state_only" if constant else "no_kv"
            window = None
        elif beyond is not None and beyond[i] == 0:
            window = windows[i]
            kind = types[i] if types and types[i] in ("chunked_attention",) else "sliding_attention"
        else:
            kind, window = "full_attention", None
        key = (kind, float(engine), float(constant), window)
        groups.setdefault(key, []).append(i)

    layers = [
        {
            "kind": kind,
            "layers": _ranges(idx),
            "count": len(idx),
            "bytes_per_token_per_layer": per_token,
            "constant_bytes_per_layer": constant,
            "window": window,
        }
        for (kind, per_token, constant, window), idx in sorted(
            groups.items(), key=lambda kv: kv[1][0]
        )
    ]
    entry: dict[str, Any] = {
        "model": name or path.stem,
        "config": path.name,
        "model_type": raw.get("model_type"),
        "params_total": params_total,
        "params_embedding": embedding,
        "tie_word_embeddings": bool(tied),
        "kv_bytes_per_token": engine_total,
    }
    if built_as not in (raw.get("model_type"), (raw.get("text_config") or {}).get("model_type")):
        entry["measured_as"] = built_as
    if max_window and beyond is not None:
        entry["kv_bytes_per_token_beyond_window"] = sum(beyond)
        entry["max_window"] = max_window
    if state_layers:
        entry["state_bytes_per_sequence"] = state_total
    entry["layers"] = layers
    entry["transformers_measured_kv_bytes_per_token"] = float(measured_total)
    return entry


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("configs", nargs="*", type=Path)
    parser.add_argument("--all", action="store_true", help="every committed config not refused")
    parser.add_argument("--write", action="store_true", help="merge results into vectors.json")
    args = parser.parse_args(argv)
    paths = list(args.configs)
    if args.all:  # every committed config but the refused families
        refused = {
            r["config"] for r in json.loads((VECTORS_DIR / "refused.json").read_text())["models"]
        }
        paths += sorted(
            p for p in (VECTORS_DIR / "configs").glob("*.json") if p.name not in refused
        )
    vectors_file = VECTORS_DIR / "vectors.json"
    doc = json.loads(vectors_file.read_text())
    by_config = {m["config"]: m for m in doc["models"]}
    results = []
    for path in paths:
        known = by_config.get(path.name)
        entry = measure(path, known["model"] if known else None)
        results.append(entry)
        print(json.dumps(entry), flush=True)
    if args.write:
        for entry in results:
            by_config[entry["config"]] = entry
        doc["models"] = list(by_config.values())
        stamp = f"transformers {transformers.__version__} + torch {torch.__version__.split('+')[0]}"
        if not doc.get("measured_with", "").startswith(
            stamp
        ):  # keep the dates of a same-version run
            doc["measured_with"] = f"{stamp} (meta device forward passes, tools/vectors/measure.py)"
        vectors_file.write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
