"""The sizing widget embedded in content by a ```sizing block, rendered at content load."""

from __future__ import annotations

from jinja2 import Environment

from app.content.figures import widget_request
from app.content.markdown import Directive, WidgetResolver
from app.sizing import load_preset, size


def make_widget_renderer(environment: Environment) -> WidgetResolver:
    template = environment.get_template("partials/sizing_embed.html")

    def render(directive: Directive) -> str:
        model_id, request = widget_request(directive)
        result = size(load_preset(model_id), request).to_dict()
        return template.render(model_id=model_id, result=result)

    return render
