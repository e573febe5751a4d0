"""Accepts only when the ratio is strictly greater than the uniform, so a ratio equal to u is
rejected, against the statement's rule (the one vLLM's former V1 model runner used)."""

def _draw(probs, u):
    running = 0.0
    last = None
    for token, p in enumerate(probs):
        if p <= 0:
            continue
        last = token
        running += p
        if running > u:
            return token
    return last


def _argmax(probs):
    return probs.index(max(probs))


def verify(draft_tokens, draft_probs, target_probs, uniforms, resample_u):
    out = []
    for i, token in enumerate(draft_tokens):
        q = draft_probs[i][token]
        p = target_probs[i][token]
        if q > 0 and p / q > uniforms[i]:
            out.append(token)
            continue
        residual = [max(pt - qt, 0.0) for pt, qt in zip(target_probs[i], draft_probs[i])]
        total = sum(residual)
        out.append(_draw([r / total for r in residual], resample_u))
        return out
    out.append(_draw(target_probs[len(draft_tokens)], resample_u))
    return out


def verify_greedy(draft_tokens, target_probs):
    out = []
    for i, token in enumerate(draft_tokens):
        best = _argmax(target_probs[i])
        out.append(best)
        if token != best:
            return out
    out.append(_argmax(target_probs[len(draft_tokens)]))
    return out
