"""A stream of distinct sizing API requests, as real traffic sends them, and a wrk script for it.

A seeded mix of presets × GPUs × GPU counts × contexts × concurrency, one in ten an inline
config (a preset's own config.json pasted, as people paste the popular ones), every body
different. Each body is checked in-process first (answered 200: the stream measures answers,
not errors). wrk's two threads start half the stream apart, so neither finds in a process's
memo what the other just asked: between two sends of one body come more distinct bodies than
a process remembers (app/api/sizing_memo.py), and the measured stream gets no memo hits.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from app.api.sizing_compute import answer_sizing
from app.api.sizing_memo import MEMO_ENTRIES
from app.sizing import GPUS, list_presets, load_preset, load_preset_config

STREAM_BODIES = 2_400
INLINE_EVERY = 10  # one request in ten pastes a config
CONTEXTS = (2048, 4096, 8192, 16384, 32768, 65536, 131072)
CONCURRENCY = (1, 2, 4, 8, 16, 32, 64, 128, 256)
GPU_COUNTS = (1, 2, 4, 8)


def sizing_bodies(count: int = STREAM_BODIES, seed: int = 35) -> list[bytes]:
    """`count` distinct request bodies that each get a 200, one in ten with an inline config."""
    assert count > 2 * MEMO_ENTRIES, "the stream must outrun the per-process memo"
    rng = random.Random(seed)
    presets = [preset.id for preset in list_presets()]
    limits = {pid: load_preset(pid).context_limit or CONTEXTS[-1] for pid in presets}
    configs = {pid: load_preset_config(pid) for pid in presets}
    gpus = sorted(GPUS)
    seen: set[str] = set()
    bodies: list[bytes] = []
    while len(bodies) < count:
        preset = rng.choice(presets)
        request = {
            "gpu": rng.choice(gpus),
            "gpus": rng.choice(GPU_COUNTS),
            "context": rng.choice([c for c in CONTEXTS if c <= limits[preset]] or [1024]),
            "concurrency": rng.choice(CONCURRENCY),
        }
        inline = len(bodies) % INLINE_EVERY == INLINE_EVERY - 1
        body = {"config": configs[preset], **request} if inline else {"model": preset, **request}
        text = json.dumps(body, separators=(",", ":"))
        if text in seen:
            continue
        seen.add(text)
        raw = text.encode()
        if answer_sizing(raw)[0] == 200:  # a legal tp on that many GPUs, within the limit
            bodies.append(raw)
    return bodies


def lua_script(bodies: list[bytes], path: Path) -> Path:
    """A wrk script that POSTs the bodies in turn, each thread starting at its own offset."""
    quoted = ",\n".join(json.dumps(body.decode()) for body in bodies)
    path.write_text(
        f"local bodies = {{\n{quoted}\n}}\n"
        "local threads = 0\n"
        "function setup(thread)\n"
        "  thread:set('offset', threads)\n"
        "  threads = threads + 1\n"
        "end\n"
        "local i = 0\n"
        "local headers = {}\n"
        "function init(args)\n"
        "  i = math.floor(offset * #bodies / 2)\n"
        "  for name, value in pairs(wrk.headers) do headers[name] = value end\n"
        '  headers["Content-Type"] = "application/json"\n'
        "end\n"
        "function request()\n"
        "  i = i % #bodies + 1\n"
        '  return wrk.format("POST", "/api/v1/sizing", headers, bodies[i])\n'
        "end\n"
    )
    return path
