"""What is this model? A config.json dict in, a validated ``ModelSpec`` out: layer pattern and
cache shapes, parameter counts, every matrix, and its weights' precision as shipped."""
