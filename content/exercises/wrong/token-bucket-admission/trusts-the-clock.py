"""Never checks a cost against the capacity, and takes a backwards clock step at face value:
the bucket loses tokens and its clock moves back."""

class TokenBucket:
    def __init__(self, rate, capacity, now=0.0):
        if rate <= 0 or capacity <= 0:
            raise ValueError("rate and capacity must be positive")
        self.rate = rate
        self.capacity = capacity
        self.tokens = capacity
        self.last = now

    def _refill(self, now):
        self.tokens = min(self.capacity, self.tokens + (now - self.last) * self.rate)
        self.last = now

    def _check(self, cost):
        pass

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
