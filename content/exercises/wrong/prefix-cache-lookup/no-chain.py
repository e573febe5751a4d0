"""Hashes each block on its own (every parent is NONE_HASH): a change early in the prompt leaves
later hashes alone, and the same block at two positions gets one hash. It also always holds back
a whole block, even when the prompt ends in a partial block that will be computed anyway."""

import hashlib

NONE_HASH = b"\x00" * 32


def hash_fn(value):
    return hashlib.sha256(repr(value).encode()).digest()


def block_hashes(token_ids, block_size, lora=None, cache_salt=None):
    hashes = []
    for index in range(len(token_ids) // block_size):
        block = tuple(token_ids[index * block_size : (index + 1) * block_size])
        extra = []
        if lora is not None:
            extra.append(lora)
        if index == 0 and cache_salt is not None:
            extra.append(cache_salt)
        hashes.append(hash_fn((NONE_HASH, block, tuple(extra) if extra else None)))
    return hashes


def cached_prefix(cache, hashes, num_tokens, block_size):
    limit = num_tokens // block_size - 1
    hit = []
    for block_hash in hashes[:limit]:
        if block_hash not in cache:
            break
        hit.append(cache[block_hash])
    return hit
