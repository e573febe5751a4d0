"""The committed vectors: every real config is either matched exactly or refused precisely."""

from __future__ import annotations

import json

import pytest

from app.sizing import parse_config
from app.sizing.errors import UnsupportedArchitectureError
from tests.sizing.sizing_helpers import VECTORS_DIR, refused, vectors

REFUSED = refused()
CONFIGS = sorted(p.name for p in (VECTORS_DIR / "configs").glob("*.json"))


def test_at_least_forty_real_configs_are_matched_exactly():
    assert len(vectors()) >= 40


def test_every_config_is_a_vector_or_a_refusal_with_its_source():
    listed = [v["config"] for v in vectors()] + [r["config"] for r in REFUSED]
    assert sorted(listed) == CONFIGS  # each once, none unaccounted for
    for name in CONFIGS:
        source = (VECTORS_DIR / "configs" / name).with_suffix(".source.txt").read_text()
        assert all(f"{key}: " in source for key in ("repo", "path", "commit"))


@pytest.mark.parametrize("entry", REFUSED, ids=[r["model"] for r in REFUSED])
def test_refused_families_name_the_family_and_what_is_not_modelled(entry):
    raw = json.loads((VECTORS_DIR / "configs" / entry["config"]).read_text())
    with pytest.raises(UnsupportedArchitectureError) as err:
        parse_config(raw)
    assert err.value.field == entry["field"]
    assert entry["says"] in err.value.message
    assert "does not model" in err.value.message or "not modelled" in err.value.message
