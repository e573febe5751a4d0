"""htmx history restores ask for the full page: the page cache must never give that page to a
request for the fragment (or the fragment to a restore)."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

FRAGMENT = {"HX-Request": "true"}
RESTORE = {"HX-Request": "true", "HX-History-Restore-Request": "true"}


@pytest.mark.parametrize("path", ["/", "/search?q=kv+cache", "/calculator?model=llama-3.1-8b"])
def test_a_history_restore_does_not_poison_the_fragment(client: TestClient, path: str) -> None:
    visitor = TestClient(client.app)
    restored = visitor.get(path, headers=RESTORE)
    assert restored.status_code == 200
    assert restored.text.lstrip().lower().startswith("<!doctype html")
    fragment = visitor.get(path, headers=FRAGMENT)
    assert not fragment.text.lstrip().lower().startswith("<!doctype html")
    again = visitor.get(path, headers=RESTORE)
    assert again.text.lstrip().lower().startswith("<!doctype html")
    for response in (restored, fragment):
        vary = response.headers["vary"]
        assert "HX-Request" in vary and "HX-History-Restore-Request" in vary
