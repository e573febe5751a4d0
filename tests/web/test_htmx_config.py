"""htmx may never write a style attribute: the CSP (style-src 'self') refuses inline styles."""

from __future__ import annotations

import html
import json
import re

from fastapi.testclient import TestClient


def test_htmx_never_settles_or_injects_styles(sqlite_client: TestClient) -> None:
    page = sqlite_client.get("/").text
    meta = re.search(r"<meta name=\"htmx-config\" content='([^']*)'>", page)
    assert meta is not None
    config = json.loads(html.unescape(meta.group(1)))
    assert config["includeIndicatorStyles"] is False  # a <style> element in <head>
    # htmx's default ["class", "style", "width", "height"] copies the old element's style
    # attribute (a resized textarea's) onto its replacement with setAttribute.
    assert "style" not in config["attributesToSettle"]
