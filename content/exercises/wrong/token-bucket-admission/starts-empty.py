"""Starts empty instead of full, and counts whole tokens only, dropping the fraction that has
flowed in so far.
Its wait_time also leaves out the gap between a `now` earlier than the latest time seen
and that time."""

class TokenBucket:
    def __init__(self, rate, capacity, now=0.0):
        if rate <= 0 or capacity <= 0:
            raise ValueError("rate and capacity must be positive")
        self.rate = rate
        self.capacity = capacity
        self.tokens = 0
        self.last = now

    def _refill(self, now):
        if now > self.last:
            self.tokens = min(self.capacity, self.tokens + int((now - self.last) * self.rate))
            self.last = now

    def _check(self, cost):
        if cost > self.capacity:
            raise ValueError(f"a cost of {cost} can never fit a bucket of {self.capacity}")

    def available(self, now):
        self._refill(now)
        return self.tokens

    def try_admit(self, cost, now):
        self._check(cost)
        self._refill(now)
        if self.tokens >= cost:
            self.tokens -= cost
            return True
        return False

    def wait_time(self, cost, now):
        self._check(cost)
        self._refill(now)
        return max(0.0, (cost - self.tokens) / self.rate)
