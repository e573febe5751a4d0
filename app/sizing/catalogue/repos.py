"""Where each preset's checkpoint lives on Hugging Face: the repo id a launch command names.

Most preset files are copies named ``<org>--<model>_config.json`` (aiconfigurator's layout), which
names the repo; the rest are listed. A pasted config's ``_name_or_path`` names its repo when it is
an ``org/name`` id rather than a local path.
"""

from __future__ import annotations

import re
from functools import cache

from .presets import list_presets

# Presets whose source file is not named <org>--<model>_config.json (aiconfigurator's copies).
HF_REPOS = {
    "llama-3.2-1b": "meta-llama/Llama-3.2-1B",
    "mistral-7b-v0.1": "mistralai/Mistral-7B-v0.1",
    "mistral-nemo-12b": "mistralai/Mistral-Nemo-Instruct-2407",
    "gemma-2-9b": "google/gemma-2-9b-it",
    "gemma-3-27b": "google/gemma-3-27b-it",
    "deepseek-v2-lite": "deepseek-ai/DeepSeek-V2-Lite",
    "gpt2": "openai-community/gpt2",
}
_VENDORED = re.compile(r"^(?P<org>[\w.-]+)--(?P<name>[\w.-]+)_config\.json$")
_REPO_ID = re.compile(r"^[\w.-]+/[\w.-]+$")


@cache
def hf_repo(preset_id: str | None) -> str | None:
    """The Hugging Face repo a preset's config.json came from, when it is known."""
    if preset_id is None:
        return None
    if preset_id in HF_REPOS:
        return HF_REPOS[preset_id]
    for preset in list_presets():
        if preset.id == preset_id:
            match = _VENDORED.match(preset.source_path.rsplit("/", 1)[-1])
            return f"{match['org']}/{match['name']}" if match else None
    return None


def config_repo(raw_name: object) -> str | None:
    """A pasted config's `_name_or_path`, when it is a repo id rather than a local path."""
    return raw_name if isinstance(raw_name, str) and _REPO_ID.match(raw_name) else None
