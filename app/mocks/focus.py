"""What a mock (and a study plan) can be about: each focus a stated set of tracks, each target
level the content levels it draws from and the band that passes, each length its questions.

Shared by mock interviews and study plans; pure data over the content's track slugs.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.drills import SKILLS


@dataclass(frozen=True)
class Focus:
    id: str
    title: str
    tracks: tuple[str, ...]  # track slugs, as in content/tracks.yaml
    skills: tuple[str, ...]  # drill skills that warm up for it

    def describe(self, track_titles: dict[str, str]) -> str:
        return ", ".join(track_titles.get(slug, slug) for slug in self.tracks)


_MEMORY = ("kv-bytes-per-token", "kv-per-sequence", "weight-memory", "kv-capacity")
FOCUSES: dict[str, Focus] = {
    focus.id: focus
    for focus in (
        Focus(
            "inference",
            "Inference & serving",
            ("inference-serving", "napkin-math", "open-weights", "quantization", "cost"),
            (*_MEMORY, "max-concurrency", "min-gpus", "decode-step", "prefill-time"),
        ),
        Focus(
            "training",
            "Training & parallelism",
            ("training-parallelism", "networking", "reliability-operations"),
            ("weight-memory", "tp-degrees", "all-reduce-time", "training-time"),
        ),
        Focus(
            "gpus",
            "GPUs & performance",
            ("gpu-architecture", "gpu-kernels"),
            ("decode-step", "prefill-time", "weight-memory", "kv-bytes-per-token"),
        ),
        Focus(
            "mixed",
            "Mixed",
            (
                "inference-serving",
                "napkin-math",
                "open-weights",
                "gpu-architecture",
                "gpu-kernels",
                "training-parallelism",
                "networking",
                "cost",
                "reliability-operations",
                "quantization",
            ),
            tuple(SKILLS),
        ),
    )
}


@dataclass(frozen=True)
class Level:
    id: str
    title: str
    band: int  # the rubric band that meets this level's bar (2 mid-level, 3 senior, 4 staff)
    draws: tuple[str, ...]  # content levels, in the order they are drawn from
    fill: tuple[str, ...] = ()  # drawn from, with a note, when the above run short


LEVELS: dict[str, Level] = {
    level.id: level
    for level in (
        Level("mid", "Mid-level", 2, ("foundational", "intermediate")),
        Level("senior", "Senior", 3, ("intermediate", "advanced")),
        Level("staff", "Staff", 4, ("advanced",), ("intermediate",)),
    )
}

# Length in minutes → questions; the warm-up drill takes the first minutes.
LENGTHS: dict[int, int] = {30: 2, 45: 3, 60: 4}
WARMUP_MINUTES = 3


class ChoiceError(ValueError):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def check_choice(focus: str, level: str, minutes: int) -> tuple[Focus, Level]:
    if focus not in FOCUSES:
        raise ChoiceError(f"Choose a focus: {', '.join(f.title for f in FOCUSES.values())}.")
    if level not in LEVELS:
        raise ChoiceError("Choose a target level: mid-level, senior or staff.")
    if minutes not in LENGTHS:
        raise ChoiceError("Choose a length: 30, 45 or 60 minutes.")
    return FOCUSES[focus], LEVELS[level]
