"""The sizing core: config.json → KV cache, weights and GPU capacity, as exact integers.

Pure standard-library Python; imports nothing from the rest of ``app``. See docs/sizing.md for
the semantics and the engine source of every formula.
"""

from .answer.remedies import Remedy, remedies
from .answer.result import SizingResult
from .answer.sizer import size
from .catalogue.gpus import GPU, GPUS, get_gpu
from .catalogue.presets import (
    Preset,
    find_preset_id,
    list_presets,
    load_preset,
    load_preset_config,
    suggest_presets,
)
from .deployment.request import DEFAULT_GPU_UTIL, DEFAULT_RESERVE_BYTES, SizingRequest
from .errors import (
    ConfigError,
    ContextLimitError,
    IllegalTPError,
    SizingError,
    UnknownGPUError,
    UnknownModelError,
    UnsupportedArchitectureError,
)
from .memory.capacity import legal_tp_degrees, tp_violation, weights_bytes
from .model.parse import parse_config
from .model.spec import Attention, LayerSpec, ModelSpec, ParamCounts, State
from .terminal.report import format_report

__all__ = [
    "DEFAULT_GPU_UTIL",
    "DEFAULT_RESERVE_BYTES",
    "GPU",
    "GPUS",
    "Attention",
    "ConfigError",
    "ContextLimitError",
    "IllegalTPError",
    "LayerSpec",
    "ModelSpec",
    "ParamCounts",
    "Preset",
    "Remedy",
    "SizingError",
    "SizingRequest",
    "SizingResult",
    "State",
    "UnknownGPUError",
    "UnknownModelError",
    "UnsupportedArchitectureError",
    "find_preset_id",
    "format_report",
    "get_gpu",
    "legal_tp_degrees",
    "list_presets",
    "load_preset",
    "load_preset_config",
    "parse_config",
    "remedies",
    "size",
    "suggest_presets",
    "tp_violation",
    "weights_bytes",
]
