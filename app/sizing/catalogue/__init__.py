"""What is on the shelf? GPUs with their memory, rates and links, the efficiency profiles a
step reaches, and the preset models (their config.json files stay in ``app/sizing/presets/``)."""
