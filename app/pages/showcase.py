"""The home page's live example: one deployment sized by the core (computed once per process)."""

from __future__ import annotations

import dataclasses
from functools import cache
from typing import Any

from app.sizing import SizingRequest, get_gpu, load_preset, size

MODEL, GPU, GPUS, CONTEXT = "llama-3.1-70b", "H200", 8, 32_768


@cache
def showcase() -> dict[str, Any]:
    spec = load_preset(MODEL)
    # The calculator's defaults (its reserve estimated, not fixed), so the link opens on the
    # same figures.
    request = SizingRequest(gpu=GPU, gpus=GPUS, context=CONTEXT, concurrency=1)
    bf16 = size(spec, request).to_dict()
    fp8 = size(spec, dataclasses.replace(request, kv_dtype="fp8")).to_dict()
    return {
        "model": spec.name,
        "gpu": get_gpu(GPU).name,
        "gpus": GPUS,
        "context": CONTEXT,
        "kv_per_token": bf16["kv_bytes_per_token"],
        "kv_per_sequence": bf16["kv_bytes_per_sequence"],
        "weights": bf16["weights_bytes"],
        "sessions": bf16["max_concurrency"],
        "sessions_fp8": fp8["max_concurrency"],
        "url": f"/calculator?model={MODEL}&gpu={GPU}&gpus={GPUS}&context={CONTEXT}&concurrency=64",
    }
