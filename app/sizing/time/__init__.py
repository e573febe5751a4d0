"""How long does it take? What a decode step or a prefill moves and computes, the step time, TPOT,
tokens/s and TTFT it comes to, and the collective and training times the drills ask about."""
