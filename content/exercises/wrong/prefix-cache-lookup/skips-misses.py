"""Reuses every cached block of the prompt, skipping over misses (a block after a miss is not a
prefix of anything cached), and writes "no extra keys" as an empty tuple."""

import hashlib

NONE_HASH = b"\x00" * 32


def hash_fn(value):
    return hashlib.sha256(repr(value).encode()).digest()


def block_hashes(token_ids, block_size, lora=None, cache_salt=None):
    hashes = []
    parent = NONE_HASH
    for index in range(len(token_ids) // block_size):
        block = tuple(token_ids[index * block_size : (index + 1) * block_size])
        extra = []
        if lora is not None:
            extra.append(lora)
        if index == 0 and cache_salt is not None:
            extra.append(cache_salt)
        parent = hash_fn((parent, block, tuple(extra)))
        hashes.append(parent)
    return hashes


def cached_prefix(cache, hashes, num_tokens, block_size):
    limit = (num_tokens - 1) // block_size
    return [cache[h] for h in hashes[:limit] if h in cache]
