"""The mini-calculator a ```sizing block embeds in content, rendered once at content load.

The block's keys prefill the form; the first results are rendered here by the same templates the
`/calculator/embed` fragment uses, so the page reads correctly before (or without) any script.
"""

from __future__ import annotations

from itertools import count

from jinja2 import Environment

from app.content.figures import widget_request
from app.content.markdown import Directive, WidgetResolver
from app.content.plan_figures import PLANNER_BLOCK, planner_block
from app.pages.calculator import embed_values
from app.pages.calculator_form import DEFAULTS, CalcForm
from app.pages.planner_form import FIELDS as PLANNER_FIELDS
from app.pages.planner_form import PlannerForm
from app.sizing import SizingRequest
from app.web.sizing_format import gib_input


def form_from_block(model_id: str, request: SizingRequest) -> CalcForm:
    """The block's request as calculator fields; a tp the block states is kept (blank would let
    the calculator choose its own default, the largest degree within one scale-up domain)."""
    tp = "" if request.tp is None else str(request.tp)
    values = {
        **DEFAULTS,
        "model": model_id,
        "gpu": request.gpu,
        "gpus": str(request.gpus),
        "tp": tp,
        "context": "" if request.context is None else str(request.context),
        "concurrency": str(request.concurrency),
        "kv_dtype": request.kv_dtype,
        "weight_dtype": request.weight_dtype,
        "gpu_util": str(request.gpu_util),
        "reserve": gib_input(request.reserve_bytes),
        "kv_budget": gib_input(request.kv_budget_bytes),
    }
    return CalcForm(values=values)


def planner_link(directive: Directive) -> str:
    """The planner page on a block's question (its own state: one URL)."""
    args = directive.args
    values = {name: args.get(name, "") for name in PLANNER_FIELDS}
    values["engine"] = values["engine"] or "vllm"
    form = PlannerForm(values)
    form.gpu_types = [g.strip() for g in args.get("gpu_types", "").split(",") if g.strip()]
    for pair in filter(None, args.get("gpu_hour_usd", "").split(",")):
        gpu, _, price = pair.partition(":")
        form.prices[gpu.strip()] = price.strip()
    form.allow_lower = args.get("allow_lower_precision") == "yes"
    return form.url


def make_widget_renderer(environment: Environment) -> WidgetResolver:
    template = environment.get_template("partials/sizing_embed.html")
    planner_template = environment.get_template("partials/planner_embed.html")
    numbers = count(1)  # one renderer per content load: ids are unique across every page

    def render(directive: Directive) -> str:
        if directive.name == PLANNER_BLOCK:
            _model, request, answer = planner_block(directive)
            return planner_template.render(
                answer=answer, request=request, link=planner_link(directive), uid=next(numbers)
            )
        model_id, request = widget_request(directive)
        form = form_from_block(model_id, request)
        uid = f"sizing-{next(numbers)}"
        values = embed_values(form, uid)
        return template.render(**values, show_tp=form.values["tp"] != "", is_fragment=False)

    return render
