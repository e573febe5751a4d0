"""Builds the nucleus from the top and stops before the token that crosses top_p, so unless the
most likely token alone reaches top_p, the set it keeps covers less than top_p."""

import math


def _greedy(logits):
    best = max(logits)
    return logits.index(best)  # the lowest id among equal maxima


def filtered_probs(logits, temperature, top_k, top_p):
    size = len(logits)
    if temperature == 0:
        probs = [0.0] * size
        probs[_greedy(logits)] = 1.0
        return probs
    scaled = [x / temperature for x in logits]
    kept = [True] * size
    if 0 < top_k < size:
        threshold = sorted(scaled, reverse=True)[top_k - 1]
        kept = [x >= threshold for x in scaled]
    peak = max(x for x, keep in zip(scaled, kept) if keep)
    weights = [math.exp(x - peak) if keep else 0.0 for x, keep in zip(scaled, kept)]
    total = sum(weights)
    probs = [w / total for w in weights]
    if top_p < 1:
        # Descending by probability, lower id first on ties; a token is dropped once the running sum reaches top_p.
        order = sorted((i for i in range(size) if probs[i] > 0), key=lambda i: (-probs[i], i))
        running = 0.0
        for position, token in enumerate(order):
            running += probs[token]
            if running >= top_p and position > 0:
                probs[token] = 0.0
        total = sum(probs)
        probs = [p / total for p in probs]
    return probs


def sample(logits, temperature, top_k, top_p, rng):
    if temperature == 0:
        return _greedy(logits)
    probs = filtered_probs(logits, temperature, top_k, top_p)
    u = rng.random()
    running = 0.0
    last = None
    for token, p in enumerate(probs):
        if p == 0:
            continue
        last = token
        running += p
        if running > u:
            return token
    return last
