"""Deals columns and rows out round-robin (rank r takes r, r + t, ...) instead of in contiguous
blocks: the arithmetic still works, but the shards are not the ones a checkpoint's layout holds."""

def _check(h, t):
    if h % t:
        raise ValueError(f"the hidden size {h} does not split over {t} ranks")
    return h // t


def shard_columns(A, t):
    size = _check(len(A[0]), t)
    return [[row[r::t] for row in A] for r in range(t)]


def shard_rows(B, t):
    size = _check(len(B), t)
    return [B[r::t] for r in range(t)]


def _matmul(P, Q):
    return [[sum(p * q for p, q in zip(row, column)) for column in zip(*Q)] for row in P]


def tp_mlp(X, A, B, t):
    a_shards, b_shards = shard_columns(A, t), shard_rows(B, t)
    partials = []
    for r in range(t):  # each rank, with no communication
        hidden = [[max(0, v) for v in row] for row in _matmul(X, a_shards[r])]
        partials.append(_matmul(hidden, b_shards[r]))
    # The all-reduce: every rank ends with the sum of the partial outputs.
    Y = [[sum(values) for values in zip(*rows)] for rows in zip(*partials)]
    collectives = [("all-reduce", len(Y) * len(Y[0]))] if t > 1 else []
    return Y, collectives
