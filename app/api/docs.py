"""`/api/docs`: Swagger UI served from our own static files, so it runs under the site's CSP.

FastAPI's built-in page loads Swagger UI from a CDN and starts it with an inline script, both of
which the Content-Security-Policy (`script-src 'self'`) refuses. Here the bundle and stylesheet
come from npm (`swagger-ui-dist`, copied into static/vendor by make) and a small script of ours
starts it.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from app.web.deps import Templates

router = APIRouter(include_in_schema=False)


@router.get("/api/docs")
def api_docs(request: Request, templates: Templates) -> Response:
    return templates.page(request, "api/docs.html", {"openapi_url": "/openapi.json"})
