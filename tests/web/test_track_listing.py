"""Every track in content/tracks.yaml has an icon the sprite draws, and every page that lists
tracks lists all of them, in curriculum order."""

from __future__ import annotations

import re
from html import escape
from xml.etree import ElementTree

from starlette.testclient import TestClient

from app.content.store import ContentStore
from app.settings import PROJECT_ROOT

SPRITE = PROJECT_ROOT / "static" / "icons" / "sprite.svg"
SVG = "{http://www.w3.org/2000/svg}"


def sprite_symbols() -> dict[str, ElementTree.Element]:
    root = ElementTree.parse(SPRITE).getroot()
    return {symbol.get("id", ""): symbol for symbol in root.iter(f"{SVG}symbol")}


def test_every_track_icon_is_a_line_drawing_in_the_sprite(content_store: ContentStore) -> None:
    symbols = sprite_symbols()
    icons = [track.meta.icon for track in content_store.tracks]
    assert len(set(icons)) == len(icons), "two tracks share an icon"
    for icon in icons:
        symbol = symbols.get(icon)
        assert symbol is not None, f"sprite.svg has no symbol {icon!r}"
        # Drawn like the others: a 24×24 line drawing in the text colour, so it follows the theme.
        assert symbol.get("viewBox") == "0 0 24 24", icon
        assert symbol.get("fill") == "none" and symbol.get("stroke") == "currentColor", icon
        assert len(symbol) >= 2, f"{icon!r} draws almost nothing"


def test_curriculum_lists_every_track_in_order(
    sqlite_client: TestClient, content_store: ContentStore
) -> None:
    html = sqlite_client.get("/curriculum").text
    listed = re.findall(r'<li class="curriculum-track" id="([a-z0-9-]+)"', html)
    assert listed == [track.slug for track in content_store.tracks]
    for track in content_store.tracks:
        assert f"#{track.meta.icon}" in html and escape(track.title) in html


def test_home_filter_offers_every_track(
    sqlite_client: TestClient, content_store: ContentStore
) -> None:
    html = sqlite_client.get("/").text
    offered = re.findall(r'name="track" value="([a-z0-9-]+)"', html)
    assert offered == [track.slug for track in content_store.tracks]
    assert f"{len(content_store.tracks)} tracks" in html


def test_every_track_page_renders(sqlite_client: TestClient, content_store: ContentStore) -> None:
    for track in content_store.tracks:
        response = sqlite_client.get(track.url)
        assert response.status_code == 200, track.slug
        assert escape(track.title) in response.text
