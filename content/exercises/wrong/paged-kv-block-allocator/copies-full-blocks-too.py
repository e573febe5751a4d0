"""Copies whenever the last block is shared, even when it is full: the next token needs a new
block anyway, so the copy wastes a block and a device copy, and the shared block loses an owner."""

from collections import deque


class OutOfBlocks(Exception):
    pass


class BlockAllocator:
    def __init__(self, num_blocks, block_size):
        self.block_size = block_size
        self.copies = []
        self._free = deque(range(num_blocks))
        self._refs = [0] * num_blocks
        self._tables = {}
        self._tokens = {}

    def num_free(self):
        return len(self._free)

    def ref_count(self, block_id):
        return self._refs[block_id]

    def block_table(self, seq_id):
        return list(self._tables[seq_id])

    def _take(self):
        block = self._free.popleft()
        self._refs[block] = 1
        return block

    def allocate(self, seq_id, num_tokens):
        if seq_id in self._tables:
            raise ValueError(seq_id)
        needed = -(-num_tokens // self.block_size)
        if needed > len(self._free):
            raise OutOfBlocks()
        self._tables[seq_id] = [self._take() for _ in range(needed)]
        self._tokens[seq_id] = num_tokens
        return self.block_table(seq_id)

    def fork(self, parent_id, child_id):
        for block in self._tables[parent_id]:
            self._refs[block] += 1
        self._tables[child_id] = list(self._tables[parent_id])
        self._tokens[child_id] = self._tokens[parent_id]

    def append_token(self, seq_id):
        table = self._tables[seq_id]
        if table and self._refs[table[-1]] > 1:
            old = table[-1]
            new = self._take()
            self._refs[old] -= 1
            self.copies.append((old, new))
            table[-1] = new
        if self._tokens[seq_id] % self.block_size == 0:
            if not self._free:
                raise OutOfBlocks()
            table.append(self._take())
        self._tokens[seq_id] += 1
        return list(table)

    def free(self, seq_id):
        table = self._tables.pop(seq_id)
        del self._tokens[seq_id]
        for block in reversed(table):
            self._refs[block] -= 1
            if self._refs[block] == 0:
                self._free.append(block)
