"""What deployment is being sized? ``SizingRequest``: the inputs (GPU, TP, context, concurrency,
dtypes, budget), validated on construction, and the bounds each may take."""
