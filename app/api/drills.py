"""The drills JSON API: list the skills, fetch a drill by (skill, seed), grade an answer.

Stateless: grading here stores nothing (members' progress is recorded by the site's form), so
like the sizing API it takes no CSRF token and sets no cookie authority.
"""

from __future__ import annotations

import secrets
from typing import Any, Literal

from fastapi import APIRouter, HTTPException, Query
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field, field_validator

from app.drills import (
    MAX_SEED,
    SKILLS,
    AnswerError,
    Drill,
    UnknownSkill,
    format_value,
    generate,
    get_skill,
    grade,
    in_unit,
)
from app.web.body_limit import KIB, capped_body_route

# An answer is a seed and a hundred characters at most: a few KiB is plenty.
router = APIRouter(prefix="/api/v1", tags=["drills"], route_class=capped_body_route(4 * KIB))
Number = int | float | list[int]


class SkillInfo(BaseModel):
    id: str = Field(description="What `{skill}` takes.")
    title: str
    summary: str
    group: Literal["memory", "time"]
    tolerance: str = Field(description="How answers are graded, in words.")
    url: str = Field(description="The skill's page on the site.")


class DrillOut(BaseModel):
    skill: str
    seed: int = Field(description="With `skill`, names the drill: the same pair, the same drill.")
    prompt: str
    unit: str = Field(description="The unit `expected` is given in (B, B/token, tokens, ms, …).")
    tolerance: str
    inputs: dict[str, Any] = Field(
        description="What the candidate is given: config fields under their config.json names "
        "(num_hidden_layers, num_key_value_heads, …), plus kv_dtype_bytes, context, "
        "concurrency, gpu, gpus, tp, and bandwidth/efficiency for time drills, as used; "
        "`kv_cache_layout` and `weight_layout` spell out, in bytes, the layout graded against "
        "where it is not one element of the stated dtype (fp8 MLA, DSA indexers, quantised "
        "weights)."
    )
    concept_url: str = Field(description="The concept card that teaches this skill.")
    url: str = Field(description="The drill's stable page on the site.")


class AnswerIn(BaseModel):
    seed: int = Field(ge=0, le=MAX_SEED)
    answer: str | int | float = Field(
        description='A number (in `unit`) or a string with units: "128 KiB", "1.2e5", '
        '"3.5 GB", "2.3 ms", "1, 2, 4, 8" for TP degrees.'
    )

    @field_validator("answer")
    @classmethod
    def _encodable(cls, value: str | int | float) -> str | int | float:
        # JSON's \ud800 escapes decode to lone surrogates, which no response (nor the message
        # quoting the answer back) can encode: refuse them here, as text that is not Unicode.
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise ValueError("must be valid Unicode text (no lone surrogates)") from None
        return value


class MistakeOut(BaseModel):
    id: str
    name: str
    explanation: str


class AnswerOut(BaseModel):
    skill: str
    seed: int
    verdict: Literal["correct", "close", "wrong"]
    answer_read_as: str = Field(description="How the answer was read, in words.")
    expected: Number = Field(description="The answer, in `unit`.")
    expected_text: str
    unit: str
    mistake: MistakeOut | None = Field(description="The classic mistake the answer matches.")
    solution: list[str] = Field(description="The worked solution, step by step.")
    concept_url: str


def _drill(skill: str, seed: int) -> Drill:
    try:
        return generate(skill, seed)
    except UnknownSkill as error:
        raise HTTPException(404, detail=error.message) from None


def drill_json(drill: Drill) -> dict[str, Any]:
    return {
        "skill": drill.skill,
        "seed": drill.seed,
        "prompt": drill.prompt,
        "unit": drill.unit,
        "tolerance": get_skill(drill.skill).tolerance.text,
        "inputs": drill.inputs,
        "concept_url": f"/concepts/{drill.concept}",
        "url": f"/drills/{drill.skill}?seed={drill.seed}",
    }


@router.get("/drills", summary="Drill skills", response_model=list[SkillInfo])
def list_skills() -> JSONResponse:
    """Every napkin-math skill there are drills for."""
    return JSONResponse(
        [
            {
                "id": s.id,
                "title": s.title,
                "summary": s.summary,
                "group": s.group,
                "tolerance": s.tolerance.text,
                "url": f"/drills/{s.id}",
            }
            for s in SKILLS.values()
        ]
    )


@router.get(
    "/drills/{skill}",
    summary="One drill",
    response_model=DrillOut,
    responses={404: {"description": "No such skill."}},
)
def get_drill(
    skill: str,
    seed: int | None = Query(None, ge=0, le=MAX_SEED, description="Omit for a random drill."),
) -> JSONResponse:
    """The drill for (skill, seed), generated from a real preset and the GPU catalogue."""
    return JSONResponse(
        drill_json(_drill(skill, secrets.randbelow(MAX_SEED + 1) if seed is None else seed))
    )


@router.post(
    "/drills/{skill}/answer",
    summary="Grade an answer",
    response_model=AnswerOut,
    responses={
        404: {"description": "No such skill."},
        422: {"description": "The answer could not be read; the message says what."},
    },
)
def answer_drill(skill: str, body: AnswerIn) -> JSONResponse:
    """Correct, close or wrong; a classic mistake named when the answer matches one."""
    drill = _drill(skill, body.seed)
    try:
        verdict = grade(drill, body.answer)
    except AnswerError as error:
        return JSONResponse(
            {"detail": [{"loc": ["body", "answer"], "msg": error.message, "type": "answer"}]},
            status_code=422,
        )
    mistake = verdict.mistake
    return JSONResponse(
        {
            "skill": drill.skill,
            "seed": drill.seed,
            "verdict": verdict.verdict,
            "answer_read_as": format_value(drill, verdict.answer),
            "expected": in_unit(drill, drill.expected),
            "expected_text": format_value(drill, drill.expected),
            "unit": drill.unit,
            "mistake": None
            if mistake is None
            else {"id": mistake.id, "name": mistake.name, "explanation": mistake.explanation},
            "solution": drill.solution,
            "concept_url": f"/concepts/{drill.concept}",
        }
    )
