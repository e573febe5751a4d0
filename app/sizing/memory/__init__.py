"""Does it fit? Cache bytes per token and per sequence, the weights per GPU, the legal TP degrees
and how many sequences of a context the remaining memory holds."""
