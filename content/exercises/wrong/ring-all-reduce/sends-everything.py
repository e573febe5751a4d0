"""Has every rank send its whole vector round the ring and add everything up: every rank gets
the sum, at n - 1 times the elements of the buffer per rank instead of 2(n - 1)/n, and
reduce-scatter leaves the full sum on every rank instead of one owned chunk."""

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
        outgoing = [(r, (r - step) % n, _chunk(vectors[r], (r - step) % n, size)) for r in range(n)]
        for r, index, values in outgoing:
            target = vectors[(r + 1) % n]
            for i, value in enumerate(values):
                target[index * size + i] += value


def reduce_scatter(data):
    _check(data)
    total = [sum(column) for column in zip(*data)]
    return [list(total) for _ in data]


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
    sent = [(n - 1) * size * n] * n
    return vectors, sent


def bytes_sent_per_rank(num_elements, n, dtype_bytes):
    return 2 * (n - 1) * num_elements // n * dtype_bytes
