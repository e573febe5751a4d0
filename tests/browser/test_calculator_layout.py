"""At 1,280 px the calculator's GPU control is whole: inside the viewport, not clipped by the
sidebar or any scrolling ancestor, and wide enough for its longest option."""

from __future__ import annotations

import pytest

GPU_CONTROL_CLIPPING = """
(select) => {
  const box = select.getBoundingClientRect();
  const problems = [];
  if (box.left < 0 || box.right > innerWidth) problems.push(`outside the viewport: ${box.left}-${box.right}`);
  for (let el = select.parentElement; el; el = el.parentElement) {
    const style = getComputedStyle(el);
    if ([style.overflowX, style.overflowY].every((o) => o === 'visible')) continue;
    const outer = el.getBoundingClientRect();
    if (box.left < outer.left - 0.5 || box.right > outer.right + 0.5 ||
        box.top < outer.top - 0.5 || box.bottom > outer.bottom + 0.5)
      problems.push(`clipped by ${el.tagName}.${el.className}`);
  }
  const context = document.createElement('canvas').getContext('2d');
  context.font = getComputedStyle(select).font;
  const widest = Math.max(...[...select.options].map((o) => context.measureText(o.text).width));
  if (widest > select.clientWidth - 24) problems.push(`options ${widest}px wide in ${select.clientWidth}px`);
  return problems;
}
"""


@pytest.mark.parametrize("height", [800, 720])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_gpu_control_is_whole_at_1280(browser, live_server, height: int, scheme: str) -> None:  # type: ignore[no-untyped-def]
    context = browser.new_context(
        base_url=live_server.url,
        viewport={"width": 1280, "height": height},
        color_scheme=scheme,
    )
    try:
        page = context.new_page()
        for path in ("/calculator", "/calculator/compare"):
            page.goto(path)
            for select in page.locator("select[name$=gpu]").all():
                select.scroll_into_view_if_needed()
                assert select.is_visible()
                assert select.evaluate(GPU_CONTROL_CLIPPING) == [], path
    finally:
        context.close()
