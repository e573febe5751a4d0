"""The planner page's work in a sizing worker process: a preset id or a pasted config and the
request's fields in, the plan's JSON-ready answer (with every evaluated point, for the chart) or
the field errors out. Everything in and out is plain data, so it crosses the process boundary."""

from __future__ import annotations

from typing import Any

from app.pages.calculator_form import load_config_text
from app.sizing import SizingError, UnknownModelError, find_preset_id, load_preset
from app.sizing.catalogue.repos import config_repo, hf_repo
from app.sizing.plan.inputs import PlanRequest
from app.sizing.plan.result import plan


def run_plan(model: str | None, config_text: str | None, fields: dict[str, Any]) -> dict[str, Any]:
    """{"result": …} or {"errors": {field: message}, "suggestions": [preset ids]}."""
    try:
        if config_text is not None:
            spec = load_config_text(config_text)
            model_ref = config_repo(spec.name)
        else:
            spec = load_preset(model or "")
            model_ref = hf_repo(find_preset_id(model or ""))
    except UnknownModelError as error:
        return {
            "errors": {"model": f"No preset called “{(model or '')[:60]}”."},
            "suggestions": list(error.suggestions),
        }
    except SizingError as error:
        return {"errors": {"config" if config_text is not None else "model": error.message}}
    try:
        request = PlanRequest(**fields)
        result = plan(spec, request, model_ref)
    except SizingError as error:
        return {"errors": {error.field or "model": error.message}}
    data = result.to_dict()
    data["points"] = [{**p.to_dict(), "on_frontier": p.on_frontier} for p in result.points]
    return {"result": data}
