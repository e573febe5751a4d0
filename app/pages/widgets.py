"""The mini-calculator a ```sizing block embeds in content, rendered once at content load.

The block's keys prefill the form; the first results are rendered here by the same templates the
`/calculator/embed` fragment uses, so the page reads correctly before (or without) any script.
"""

from __future__ import annotations

from itertools import count

from jinja2 import Environment

from app.content.figures import widget_request
from app.content.markdown import Directive, WidgetResolver
from app.pages.calculator import embed_values
from app.pages.calculator_form import DEFAULTS, CalcForm
from app.sizing import SizingRequest
from app.web.sizing_format import gib_input


def form_from_block(model_id: str, request: SizingRequest) -> CalcForm:
    """The block's request as calculator fields (tp blank when it is simply "all GPUs")."""
    tp = "" if request.tp is None or request.tp == request.gpus else str(request.tp)
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


def make_widget_renderer(environment: Environment) -> WidgetResolver:
    template = environment.get_template("partials/sizing_embed.html")
    numbers = count(1)  # one renderer per content load: ids are unique across every page

    def render(directive: Directive) -> str:
        model_id, request = widget_request(directive)
        form = form_from_block(model_id, request)
        uid = f"sizing-{next(numbers)}"
        values = embed_values(form, uid)
        return template.render(**values, show_tp=form.values["tp"] != "", is_fragment=False)

    return render
