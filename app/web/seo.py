"""robots.txt and sitemap.xml."""

from __future__ import annotations

from datetime import date
from xml.sax.saxutils import escape

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse, Response

from app.web.caching import conditional
from app.web.deps import Content, base_url

router = APIRouter(include_in_schema=False)


@router.get("/robots.txt")
def robots(request: Request) -> PlainTextResponse:
    lines = [
        "User-agent: *",
        "Disallow: /account",
        "Disallow: /me",
        "Disallow: /moderation",
        "Disallow: /api/",
        f"Sitemap: {base_url(request)}/sitemap.xml",
    ]
    return PlainTextResponse("\n".join(lines) + "\n")


@router.get("/sitemap.xml")
def sitemap(request: Request, content: Content) -> Response:
    def render() -> Response:
        root = base_url(request)
        entries: list[tuple[str, date | None]] = [("/", None), ("/curriculum", None)]
        # The drills index only: a drill's own page is one of endless seeds (noindex).
        entries += [("/calculator", None), ("/planner", None), ("/drills", None)]
        entries += [("/exercises", None)]
        entries += [(track.url, None) for track in content.tracks]
        entries += [(q.url, q.meta.updated) for q in content.questions]
        entries += [(c.url, c.meta.updated) for c in content.concepts]
        entries += [(e.url, e.meta.updated) for e in content.exercises]
        urls = []
        for path, updated in entries:
            lastmod = f"<lastmod>{updated.isoformat()}</lastmod>" if updated else ""
            urls.append(f"<url><loc>{escape(root + path)}</loc>{lastmod}</url>")
        body = (
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            + "".join(urls)
            + "</urlset>\n"
        )
        return Response(body, media_type="application/xml")

    return conditional(request, [content.fingerprint, base_url(request)], render)


@router.get("/feed.xml")
def atom_feed(request: Request, content: Content) -> Response:
    """New and updated questions, newest first. Entries carry the lede, never the answer."""

    def render() -> Response:
        root = base_url(request)
        questions = sorted(content.questions, key=lambda q: (q.meta.updated, q.slug), reverse=True)
        newest = questions[0].meta.updated.isoformat() if questions else "2026-01-01"
        entries = []
        for question in questions[:50]:
            url = root + question.url
            entries.append(
                "<entry>"
                f"<title>{escape(question.title)}</title>"
                f'<link rel="alternate" type="text/html" href="{escape(url)}"/>'
                f"<id>{escape(url)}</id>"
                f"<updated>{question.meta.updated.isoformat()}T00:00:00Z</updated>"
                f'<category term="{escape(question.track.slug)}" label="{escape(question.track.title)}"/>'
                f'<summary type="text">{escape(question.lede_text)}</summary>'
                "</entry>"
            )
        body = (
            '<?xml version="1.0" encoding="utf-8"?>\n'
            '<feed xmlns="http://www.w3.org/2005/Atom">'
            "<title>Prefill — new and updated questions</title>"
            f'<link rel="self" href="{escape(root)}/feed.xml"/>'
            f'<link rel="alternate" type="text/html" href="{escape(root)}/"/>'
            f"<id>{escape(root)}/feed.xml</id>"
            f"<updated>{newest}T00:00:00Z</updated>"
            "<author><name>Prefill</name></author>" + "".join(entries) + "</feed>\n"
        )
        return Response(body, media_type="application/atom+xml")

    return conditional(request, [content.fingerprint, base_url(request)], render)
