"""A scripted session through the calculator, a question page, the drills and search: no console
error and no Content-Security-Policy violation (an inline style set by our scripts or by htmx
after an in-place update would be one)."""

from __future__ import annotations

from itertools import count

from app.content.store import ContentStore
from tests.browser.test_flows import fill_composer

_numbers = count(1)

LISTEN = """
document.addEventListener('securitypolicyviolation', (event) => {
  window.reportViolation(`${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}:${event.lineNumber}`);
});
"""

CONFIG = (
    '{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,'
    ' "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,'
    ' "intermediate_size": 14336, "vocab_size": 128256, "max_position_embeddings": 131072,'
    ' "torch_dtype": "bfloat16"}'
)


def settle(page) -> None:  # type: ignore[no-untyped-def]
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(150)  # htmx settles swapped content after a short delay


def test_a_scripted_session_is_clean(page, content_store: ContentStore) -> None:  # type: ignore[no-untyped-def]
    violations: list[str] = []
    page.context.expose_function("reportViolation", lambda text: violations.append(text))
    page.context.add_init_script(LISTEN)
    page.context.set_extra_http_headers({"X-Forwarded-For": f"203.0.113.{next(_numbers) + 40}"})

    # Calculator: the model combobox, GPU count, a pasted config, the tabs, the compare view.
    page.goto("/calculator")
    model = page.get_by_role("combobox", name="Model")
    model.fill("")
    model.press_sequentially("qwen", delay=60)
    settle(page)
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    settle(page)
    gpus = page.locator("input[name=gpus]")
    gpus.fill("8")
    gpus.dispatch_event("input")
    settle(page)
    page.get_by_role("link", name="Your config.json").click()
    settle(page)
    page.locator("#calc-config").press_sequentially(CONFIG, delay=5)  # fast typing aborts requests
    settle(page)
    page.locator("summary", has_text="Memory settings").first.click()
    page.get_by_role("link", name="Preset").click()
    settle(page)
    page.goto("/calculator/compare")
    page.locator("input[name=gpus]").first.fill("2")
    page.locator("input[name=gpus]").first.dispatch_event("input")
    settle(page)

    # A question page as a member: draft, reveal, score, bookmark, post, reply, preview.
    page.goto("/signup")
    page.locator("input[name=email]").fill(f"session{next(_numbers)}@example.com")
    page.locator("input[name=display_name]").fill(f"Session {next(_numbers)}")
    page.locator("input[name=password]").fill("a long enough passphrase 42")
    page.locator("form[action='/signup'] button[type=submit]").click()
    settle(page)
    question = next(q for q in content_store.questions if q.is_free)
    page.goto(question.url)
    page.locator("#attempt-body").fill("My attempt: size the KV cache first.")
    page.locator("#attempt-body").dispatch_event("input")
    page.wait_for_timeout(1000)
    settle(page)
    page.get_by_role("button", name="Reveal the answer").click()
    settle(page)
    page.locator("input[name=band]").first.check()
    page.get_by_role("button", name="Save my score").click()
    settle(page)
    page.locator("button.bookmark").first.click()
    settle(page)
    fill_composer(page, "An approach with `code`.")
    page.get_by_role("button", name="Preview").click()
    settle(page)
    page.get_by_role("button", name="Post approach").click()
    settle(page)
    page.locator(".reply-box summary").first.click()
    page.locator(".reply-box textarea").first.fill("A reply.")
    page.locator(".reply-box button[type=submit]").first.click()
    settle(page)

    # Drills: answer one.
    page.goto("/drills/mixed")
    page.locator("#drill-answer").fill("1")
    page.locator(".drill-form button[type=submit]").click()
    settle(page)

    # Search: type.
    page.goto("/search")
    page.locator("#search-q").press_sequentially("kv cache", delay=60)
    settle(page)
    page.wait_for_timeout(400)

    assert violations == []
    page.console_errors.check()
