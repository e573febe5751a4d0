"""/api/docs is built from our own static files: nothing from a CDN, no inline script."""

from __future__ import annotations

import re

from starlette.testclient import TestClient


def test_api_docs_load_only_local_assets(client: TestClient) -> None:
    response = client.get("/api/docs")
    assert response.status_code == 200
    html = response.text
    assert "cdn.jsdelivr" not in html and "https://" not in html
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", html, flags=re.S)
    assert scripts and all('src="/static/' in attrs and not body.strip() for attrs, body in scripts)
    for asset in re.findall(r'(?:src|href)="(/static/[^"]+)"', html):
        assert client.get(asset).status_code == 200, asset


def test_api_docs_carry_the_site_header_and_a_way_back(client: TestClient) -> None:
    html = client.get("/api/docs").text
    assert '<header class="site-header">' in html and 'class="primary-nav"' in html
    assert re.search(r'<a [^>]*href="/"[^>]*>\s*← Back to Prefill', html)
    assert '<main id="main"' in html and 'id="swagger-ui"' in html
