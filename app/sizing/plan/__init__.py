"""What is the cheapest deployment that serves this traffic within these latency targets? The
planner searches GPU types, layouts, precisions, batch caps and aggregated or disaggregated
prefill, on the time model and each engine's memory rule, and shows why the winner wins."""
