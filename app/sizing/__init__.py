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
from .deployment.request import DEFAULT_GPU_UTIL, SizingRequest
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
from .memory.checkpoint import CheckpointIndex, index_only, parse_checkpoint_index
from .memory.engines import ENGINE_RULES
from .model.parse import parse_config
from .model.spec import Attention, LayerSpec, ModelSpec, ParamCounts, State
from .terminal.report import format_report

__all__ = [
    "DEFAULT_GPU_UTIL",
    "ENGINE_RULES",
    "GPU",
    "GPUS",
    "Attention",
    "CheckpointIndex",
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
    "index_only",
    "legal_tp_degrees",
    "list_presets",
    "load_preset",
    "load_preset_config",
    "parse_checkpoint_index",
    "parse_config",
    "remedies",
    "size",
    "suggest_presets",
    "tp_violation",
    "weights_bytes",
]
