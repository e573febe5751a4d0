"""Check every modelled family on transformers' own default config (dev-only; not run by tests).

The committed vectors pin each family on one config; a family's config class may fill what a
config leaves out in ways that config never exercises (MiMo-V2-Flash's sliding layers double
their KV heads only when ``swa_num_key_value_heads`` is absent). For every ``model_type`` with a
row in ``app/sizing/model/layouts.py``, this writes ``Config().to_json_string(use_diff=False)``,
measures it as ``measure.py`` does and sizes two configs with the core against that one
measurement: the written default, every key stated, and ``{"model_type": ...}`` alone, which
transformers loads as the same default model while the core must fill every key itself (the
class's declared defaults, what its ``__post_init__`` derives). It prints each family whose
parameters, KV per token or growth beyond the windows differ. Families whose default config
transformers cannot build (some need keys their defaults leave empty) are listed as skipped.

Usage (inside the ``vectors`` extra's environment, see tests/sizing/vectors/README.md):

    python tools/vectors/check_defaults.py            # every family
    python tools/vectors/check_defaults.py llama qwen3
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import measure  # noqa: E402
from transformers.models.auto.configuration_auto import CONFIG_MAPPING  # noqa: E402

from app.sizing import SizingError, SizingRequest, parse_config, size  # noqa: E402
from app.sizing.model.layouts import LAYOUTS  # noqa: E402


def check(model_type: str, folder: Path) -> str:
    """'ok', 'skipped: why' or what differs, for one family's default config."""
    try:
        text = CONFIG_MAPPING[model_type]().to_json_string(use_diff=False)
    except Exception as exc:  # transformers raises anything here
        return f"skipped: no default config ({type(exc).__name__})"
    path = folder / f"{model_type}-default.json"
    path.write_text(text)
    try:
        truth = measure.measure(path)
    except Exception as exc:
        return f"skipped: transformers cannot build it ({type(exc).__name__}: {exc})"[:200]
    verdicts = [
        f"{form}: {_compare(config, truth)}"
        for form, config in (("stated", json.loads(text)), ("minimal", {"model_type": model_type}))
    ]
    if all(v.endswith(": ok") for v in verdicts):
        return "ok"
    return "; ".join(verdicts)


def _compare(config: dict, truth: dict) -> str:
    try:
        spec = parse_config(config)
        result = size(spec, SizingRequest(gpu="B300", context=8))
    except SizingError as exc:
        return f"refused ({exc})"[:160]
    beyond = truth.get("kv_bytes_per_token_beyond_window", truth["kv_bytes_per_token"])
    diffs = {
        "params": spec.params.total - truth["params_total"],
        "kv per token": result.kv_bytes_per_token - truth["kv_bytes_per_token"],
        "beyond window": result.kv_bytes_per_token_beyond_window - beyond,
    }
    wrong = {k: v for k, v in diffs.items() if v}
    return "ok" if not wrong else "DIFFERS " + ", ".join(f"{k} {v:+,}" for k, v in wrong.items())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model_types", nargs="*", help="default: every family with a row")
    args = parser.parse_args(argv)
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for model_type in args.model_types or list(LAYOUTS):
            verdict = check(model_type, Path(tmp))
            failed += verdict != "ok" and not verdict.startswith("skipped")
            print(f"{model_type}: {verdict}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
