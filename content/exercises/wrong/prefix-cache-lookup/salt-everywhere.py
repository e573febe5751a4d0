"""Mixes the salt into every block and the LoRA name into block 0 only, the wrong way round, and
caps the lookup at num_tokens // block_size blocks (a fully cached prompt reuses them all)."""

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
        if index == 0 and lora is not None:
            extra.append(lora)
        if cache_salt is not None:
            extra.append(cache_salt)
        parent = hash_fn((parent, block, tuple(extra) if extra else None))
        hashes.append(parent)
    return hashes


def cached_prefix(cache, hashes, num_tokens, block_size):
    limit = num_tokens // block_size
    hit = []
    for block_hash in hashes[:limit]:
        if block_hash not in cache:
            break
        hit.append(cache[block_hash])
    return hit
