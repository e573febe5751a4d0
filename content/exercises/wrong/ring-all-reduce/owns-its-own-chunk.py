"""Starts each rank on the chunk before its own, so after reduce-scatter rank r owns chunk r
and the all-gather (written for the usual ownership) copies partial sums."""

def _chunk(vector, index, size):
    return vector[index * size : (index + 1) * size]


def _check(data):
    n = len(data)
    length = len(data[0])
    if any(len(vector) != length for vector in data) or length % n:
        raise ValueError(f"each vector must have the same length, divisible by {n} ranks")
    return n, length // n


def _reduce_scatter(vectors, n, size):
    for step in range(n - 1):
        # Every rank's send is read before anyone adds: the sends of one step are simultaneous.
        outgoing = [(r, (r - step - 1) % n, _chunk(vectors[r], (r - step - 1) % n, size)) for r in range(n)]
        for r, index, values in outgoing:
            target = vectors[(r + 1) % n]
            for i, value in enumerate(values):
                target[index * size + i] += value


def reduce_scatter(data):
    n, size = _check(data)
    vectors = [list(vector) for vector in data]
    _reduce_scatter(vectors, n, size)
    return vectors


def ring_all_reduce(data):
    n, size = _check(data)
    vectors = [list(vector) for vector in data]
    _reduce_scatter(vectors, n, size)
    for step in range(n - 1):
        outgoing = [
            (r, (r + 1 - step) % n, _chunk(vectors[r], (r + 1 - step) % n, size))
            for r in range(n)
        ]
        for r, index, values in outgoing:
            target = vectors[(r + 1) % n]
            target[index * size : (index + 1) * size] = values
    sent = [2 * (n - 1) * size] * n
    return vectors, sent


def bytes_sent_per_rank(num_elements, n, dtype_bytes):
    return 2 * (n - 1) * num_elements // n * dtype_bytes
