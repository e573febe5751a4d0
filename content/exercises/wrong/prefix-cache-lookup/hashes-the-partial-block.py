"""Hashes the partial last block too, as if its tokens were already in the cache, and does not
cap the lookup, so a fully cached prompt reuses every block."""

import hashlib

NONE_HASH = b"\x00" * 32


def hash_fn(value):
    return hashlib.sha256(repr(value).encode()).digest()


def block_hashes(token_ids, block_size, lora=None, cache_salt=None):
    hashes = []
    parent = NONE_HASH
    for index in range(-(-len(token_ids) // block_size)):
        block = tuple(token_ids[index * block_size : (index + 1) * block_size])
        extra = []
        if lora is not None:
            extra.append(lora)
        if index == 0 and cache_salt is not None:
            extra.append(cache_salt)
        parent = hash_fn((parent, block, tuple(extra) if extra else None))
        hashes.append(parent)
    return hashes


def cached_prefix(cache, hashes, num_tokens, block_size):
    hit = []
    for block_hash in hashes:
        if block_hash not in cache:
            break
        hit.append(cache[block_hash])
    return hit
