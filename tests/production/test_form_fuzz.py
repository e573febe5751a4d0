"""Every form, fuzzed with hypothesis: whatever is typed, the answer is never a 500."""

from __future__ import annotations

from urllib.parse import quote, urlencode

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from app.content.store import ContentStore
from app.pages.calculator_form import FIELDS as CALCULATOR_FIELDS
from tests.helpers import csrf_token, make_role, post_comment, post_id_from, signup, unique_email

NASTY = st.sampled_from(
    [
        "", " ", "\x00", "\u202e", "🙂" * 50, "a" * 20_000, "-1", "0", "99999999999999999999",
        "NaN", "1e309", "<script>alert(1)</script>", "' OR 1=1 --", "../../etc/passwd",
        "%00", "{{7*7}}", "\r\n\r\nX-Injected: 1", "null", "[]", "{}",
    ]
)  # fmt: skip
MAX_QUERY_BYTES = 60_000
VALUES = st.one_of(NASTY, st.text(max_size=300), st.integers().map(str))

FORMS: dict[str, tuple[str, list[str]]] = {
    # name: (path template, fields)
    "signup": ("/signup", ["email", "display_name", "password", "next"]),
    "login": ("/login", ["email", "password", "next"]),
    "forgot": ("/forgot", ["email"]),
    "reset": ("/reset/{token}", ["password"]),
    "verify": ("/verify-email/{token}", []),
    "profile": ("/account/profile", ["display_name"]),
    "email": ("/account/email", ["email", "current_password"]),
    "password": ("/account/password", ["current_password", "new_password"]),
    "timezone": ("/account/timezone", ["timezone"]),
    "discussion-prefs": ("/account/discussion", ["spoiler_guard", "notify_replies_by_email"]),
    "delete-account": ("/account/delete", ["current_password", "confirmation"]),
    "revoke-session": ("/account/sessions/{number}/revoke", []),
    "comment": ("{question}/comments", ["body", "parent_id", "action"]),
    "concept-comment": ("{concept}/comments", ["body", "parent_id"]),
    "preview": ("/comments/preview", ["body"]),
    "edit": ("/posts/{post}/edit", ["body"]),
    "vote": ("/posts/{number}/vote", []),
    "report": ("/posts/{post}/report", ["reason", "note"]),
    "attempt": ("/questions/{slug}/attempt", ["body"]),
    "reveal": ("/questions/{slug}/reveal", ["body"]),
    "hint": ("/questions/{slug}/hint", ["body"]),
    "read": ("/questions/{slug}/read", ["body", "keep"]),
    "try": ("/questions/{slug}/try", ["body", "action", "hints"]),
    "answer-first": ("/practice/answer-first", ["on", "next"]),
    "member-answer-first": ("/me/answer-first", ["on", "next"]),
    "signup-with-attempt": ("/signup/with-attempt", ["next", "draft"]),
    "score": ("/questions/{slug}/score", ["covered", "band"]),
    "note": ("/questions/{slug}/note", ["note"]),
    "quick-review": ("/me/review/{slug}", ["band"]),
    "hide": ("/moderation/posts/{post}/hide", ["note"]),
    "suspend": ("/moderation/users/{number}/suspend", ["days", "note"]),
    "calculator-config": ("/calculator", ["source", "config", "gpu", "gpus", "tp", "context"]),
    "drill-answer": ("/drills/{skill}/answer", ["seed", "answer", "mixed", "advanced"]),
}
QUERIES: dict[str, tuple[str, list[str]]] = {
    "home": ("/", ["track", "level", "status"]),
    "search": ("/search", ["q", "type", "track", "level", "page"]),
    "calculator": ("/calculator", list(CALCULATOR_FIELDS)),
    "compare": ("/calculator/compare", ["model", "b_model", "gpus", "b_tp", "context"]),
    "thread": ("{question}/comments", ["sort", "after"]),
    "drill": ("/drills/{skill}", ["seed", "mixed", "advanced"]),
    "mixed-drill": ("/drills/mixed", ["seed", "advanced"]),
}


@pytest.fixture(scope="module")
def member(app_factory_module, content_store: ContentStore):  # type: ignore[no-untyped-def]
    app = app_factory_module
    client = TestClient(app)
    email = unique_email("fuzz")
    signup(client, email=email)
    make_role(app, email, "moderator")  # moderation forms too
    question = next(q for q in content_store.questions if q.is_free)
    post = post_id_from(post_comment(client, question.url, "A post to fuzz around"))
    app.state.rate_limiter = type(app.state.rate_limiter)(
        clock=iter(range(0, 10**12, 10**6)).__next__
    )
    return client, {
        "question": question.url,
        "concept": content_store.concepts[0].url,
        "slug": question.slug,
        "post": post,
        "skill": "kv-per-sequence",
    }


@pytest.fixture(scope="module")
def app_factory_module(tmp_path_factory, sqlite_template, content_store):  # type: ignore[no-untyped-def]
    import shutil

    from app.main import create_app
    from tests.conftest import make_settings

    directory = tmp_path_factory.mktemp("fuzz")
    shutil.copyfile(sqlite_template, directory / "prefill.db")
    return create_app(
        make_settings(f"sqlite:///{directory / 'prefill.db'}", directory), content=content_store
    )


def path_for(template: str, names: dict[str, object], number: int, token: str) -> str:
    return template.format(number=number, token=token, **names)


@pytest.mark.parametrize("form", sorted(FORMS))
def test_forms_never_fail(member, form: str) -> None:  # type: ignore[no-untyped-def]
    client, names = member
    template, fields = FORMS[form]
    token = csrf_token(client, "/account")

    @given(
        values=st.fixed_dictionaries({field: VALUES for field in fields}),
        extra=st.dictionaries(st.text(min_size=1, max_size=20), VALUES, max_size=2),
        number=st.integers(min_value=-5, max_value=2**40),
        path_token=st.text(max_size=80).filter(
            lambda t: "/" not in t and "?" not in t and "#" not in t
        ),
        as_htmx=st.booleans(),
    )
    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
    def check(values, extra, number, path_token, as_htmx) -> None:  # type: ignore[no-untyped-def]
        if form == "delete-account":
            values["confirmation"] = "not that"  # keep the account for the next example
        path = path_for(template, names, number, quote(path_token or "x", safe=""))
        data = {**extra, **values, "csrf_token": token}
        headers = {"HX-Request": "true"} if as_htmx else {}
        response = client.post(path, data=data, headers=headers, follow_redirects=False)
        assert response.status_code < 500, (path, data, response.text[:300])

    check()


@pytest.mark.parametrize("form", sorted(QUERIES))
def test_query_strings_never_fail(member, form: str) -> None:  # type: ignore[no-untyped-def]
    client, names = member
    template, fields = QUERIES[form]

    @given(values=st.fixed_dictionaries({field: VALUES for field in fields}), as_htmx=st.booleans())
    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
    def check(values, as_htmx) -> None:  # type: ignore[no-untyped-def]
        # Past 64 KiB the test client itself refuses the URL (as browsers and proxies do).
        assume(len(urlencode(values)) < MAX_QUERY_BYTES)
        headers = {"HX-Request": "true"} if as_htmx else {}
        response = client.get(template.format(**names), params=values, headers=headers)
        assert response.status_code < 500, (template, values, response.text[:300])

    check()
