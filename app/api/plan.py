"""`POST /api/v1/plan`: the cheapest deployment for a traffic at latency targets.

It changes nothing and reads no cookie authority, so like the sizing API it is exempt from CSRF
(app/web/csrf.py). The body is read and validated by app/api/plan_compute.py in a sizing worker
process under the planner's hard time limit; every bad input is a 422 naming its field, and an
unreachable target is a 200 with `best: null` and the reason.
"""

from __future__ import annotations

from fastapi import APIRouter, BackgroundTasks, Request
from fastapi.responses import JSONResponse, Response
from starlette.concurrency import run_in_threadpool

from app.api.plan_compute import answer_plan
from app.api.plan_schemas import PlanError422, PlanRequestBody, PlanResponse
from app.api.sizing_compute import CONFIG_BODY_BYTES
from app.db.session import DbSession
from app.web.body_limit import capped_body_route
from app.web.compute_pool import (
    PLAN_TIME_LIMIT_SECONDS,
    ComputeTimeout,
    ComputeUnavailable,
    compute,
)
from app.web.throttle import SIZING_API_PER_CLIENT, throttle

router = APIRouter(
    prefix="/api/v1", tags=["planner"], route_class=capped_body_route(CONFIG_BODY_BYTES)
)


@router.post(
    "/plan",
    summary="Plan the cheapest deployment for a traffic at latency targets",
    response_model=PlanResponse,
    responses={
        413: {"description": f"Body over {CONFIG_BODY_BYTES // 1024:,} KiB."},
        422: {"model": PlanError422, "description": "Invalid input; `msg` names the field."},
        429: {"description": "Over 120 requests a minute from one client; see Retry-After."},
        503: {
            "description": f"The plan did not finish in {PLAN_TIME_LIMIT_SECONDS:g} s (server "
            "busy); retry."
        },
    },
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": PlanRequestBody.model_json_schema()}},
        }
    },
)
async def post_plan(request: Request, db: DbSession, background: BackgroundTasks) -> Response:
    """Searches GPU types × layouts (TP, PP, EP, attention-DP) × precisions × batch caps,
    aggregated and split prefill/decode, for the cheapest deployment meeting TTFT p90 and TPOT at
    `requests_per_s`: `best`, the cheapest per GPU type (`candidates`), each GPU type's Pareto
    frontier, the near misses and the launch command. Durations in ms, prices in US dollars."""
    raw = await request.body()
    if request.app.state.settings.rate_limits:
        limited = await run_in_threadpool(throttle, request, db, background, SIZING_API_PER_CLIENT)
        if limited is not None:
            return limited
    try:
        status, payload = await compute(
            request.app.state.compute_pool,
            answer_plan,
            raw,
            timeout_seconds=PLAN_TIME_LIMIT_SECONDS,
        )
    except ComputeTimeout:
        return _unavailable(
            f"the plan did not finish within {PLAN_TIME_LIMIT_SECONDS:g} seconds and was stopped "
            "(the server is busy); try again"
        )
    except ComputeUnavailable:
        return _unavailable("the sizing workers restarted; send the request again")
    return JSONResponse(payload, status_code=status)


def _unavailable(message: str) -> JSONResponse:
    return JSONResponse({"detail": message}, status_code=503, headers={"retry-after": "1"})
