"""``resolve_layout``: the layout a request asks for, with the defaults filled in.

Without ``tp``, the group is the largest legal TP degree within one scale-up domain (8 GPUs on an
HGX board, 72 in a GB200 NVL72 rack) and the remaining GPUs become replicas: 16 H200s serve
Llama 3.1 70B as two TP-8 replicas, not one TP-16 across two boards. Only when the model does not
fit one domain (its weights and one sequence of the context) do pipeline stages span domains, the
placement vLLM's distributed-serving guide recommends (tensor parallel inside a node, pipeline
parallel across nodes). An explicit ``tp`` is taken as given, even across domains; the layout
then says so (``crosses_scale_up_domain``) and the time estimate prices it on the network link.
"""

from __future__ import annotations

from ..catalogue.gpus import GPU
from ..catalogue.topology import topology
from ..deployment.layout import Layout
from ..deployment.request import SizingRequest
from ..errors import SizingError
from ..model.spec import ModelSpec
from .capacity import Replica, legal_tp_degrees, resolve


def resolve_layout(spec: ModelSpec, req: SizingRequest) -> tuple[GPU, Layout, int]:
    """(GPU, layout, context); raises IllegalTPError / SizingError naming the field at fault."""
    gpu, _, _ = resolve(spec, req, tp=1)  # the GPU and the context checks, before any tp
    domain = topology(gpu).domain
    if req.tp is not None:
        tp, tp_source = req.tp, "as given"
    else:
        legal = legal_tp_degrees(spec, min(req.gpus, domain))
        tp = legal[-1] if legal else req.gpus
        tp_source = (
            f"the largest legal degree within one scale-up domain of {domain} GPUs"
            if req.gpus > domain
            else f"the largest legal degree up to {req.gpus} GPUs"
        )
    _, tp, context = resolve(spec, req, tp=tp)
    dp = req.dp_attention and tp > 1
    experts = spec.params.experts
    ep = req.ep if req.ep is not None else (tp if dp and experts else 1)
    _check_ep(ep, tp, experts)
    if req.pp is not None:
        pp, pp_source = req.pp, "as given"
    else:
        pp, pp_source = _pipeline(spec, req, gpu, tp, dp, ep, domain, context)
    if pp > spec.num_layers:
        raise SizingError(
            f"pp ({pp}) cannot exceed the model's {spec.num_layers} layers", field="pp"
        )
    if tp * pp > req.gpus:
        raise SizingError(
            f"tp × pp = {tp} × {pp} = {tp * pp} GPUs per replica, more than the {req.gpus} "
            "GPUs given",
            field="pp",
        )
    layout = Layout(tp, pp, ep, dp, req.gpus, domain, tp_source, pp_source)
    return gpu, layout, context


def _check_ep(ep: int, tp: int, experts: int) -> None:
    if ep == 1:
        return
    if not experts:
        raise SizingError("expert parallelism needs a mixture-of-experts model", field="ep")
    if ep > tp or tp % ep:
        raise SizingError(
            f"ep ({ep}) shards the experts within one group of tp={tp} GPUs: it must divide tp",
            field="ep",
        )
    if ep > experts:
        raise SizingError(f"ep ({ep}) cannot exceed the {experts} experts", field="ep")


def _pipeline(
    spec: ModelSpec,
    req: SizingRequest,
    gpu: GPU,
    tp: int,
    dp: bool,
    ep: int,
    domain: int,
    context: int,
) -> tuple[int, str]:
    """1 stage, unless the model does not fit one group: then the fewest stages that fit."""
    layout = Layout(tp, 1, ep, dp, req.gpus, domain, "", "")
    if req.tp is not None or Replica(spec, req, gpu, tp, layout).sequences(context) >= 1:
        return 1, "one stage"
    for pp in range(2, min(req.gpus // tp, spec.num_layers) + 1):
        staged = Layout(tp, pp, ep, dp, req.gpus, domain, "", "")
        if Replica(spec, req, gpu, tp, staged).sequences(context) >= 1:
            return pp, (
                f"the fewest pipeline stages whose replica holds the weights and one sequence "
                f"of {context:,} tokens (one group of {tp} does not)"
            )
    return 1, "one stage (no number of stages on these GPUs holds the model)"
