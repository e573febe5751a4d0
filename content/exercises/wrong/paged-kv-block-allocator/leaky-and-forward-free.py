"""Takes blocks one at a time before checking that enough are free (a refused prompt keeps what
it took), lets an id be allocated twice, and frees a table first block first."""

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
        if not self._free:
            raise OutOfBlocks()
        block = self._free.popleft()
        self._refs[block] = 1
        return block

    def allocate(self, seq_id, num_tokens):
        table = self._tables[seq_id] = []
        for _ in range(-(-num_tokens // self.block_size)):
            table.append(self._take())
        self._tokens[seq_id] = num_tokens
        return list(table)

    def fork(self, parent_id, child_id):
        for block in self._tables[parent_id]:
            self._refs[block] += 1
        self._tables[child_id] = list(self._tables[parent_id])
        self._tokens[child_id] = self._tokens[parent_id]

    def append_token(self, seq_id):
        table = self._tables[seq_id]
        used = self._tokens[seq_id]
        if used % self.block_size == 0:
            table.append(self._take())
        elif self._refs[table[-1]] > 1:
            old = table[-1]
            new = self._take()
            self._refs[old] -= 1
            self.copies.append((old, new))
            table[-1] = new
        self._tokens[seq_id] = used + 1
        return list(table)

    def free(self, seq_id):
        table = self._tables.pop(seq_id)
        del self._tokens[seq_id]
        for block in table:
            self._refs[block] -= 1
            if self._refs[block] == 0:
                self._free.append(block)
