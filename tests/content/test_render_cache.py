"""The render cache: a start with unchanged content reuses it; any change to a page, to the code
that renders it or to the file itself is never served stale."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from app.content.loader import ContentInvalid, load_content
from app.content.render_cache import RenderCache, code_version
from app.main import load_site_content
from app.settings import PROJECT_ROOT
from tests.content.test_loader import FIXTURES, fake_figure, fake_widget

VERSION = "v1"


@pytest.fixture
def content(tmp_path: Path) -> Path:
    root = tmp_path / "content"
    shutil.copytree(FIXTURES / "valid" / "content", root)
    return root


KEY = "render-cache-test-key"


def load(root: Path, cache_file: Path, version: str = VERSION, key: str = KEY):  # type: ignore[no-untyped-def]
    cache = RenderCache(cache_file, version, key=key)
    store = load_content(root, figures=fake_figure, widgets=fake_widget, cache=cache)
    return store, cache


def read_cache(path: Path) -> dict:
    """The file's JSON, after its signature line."""
    return json.loads(path.read_bytes().partition(b"\n")[2])


def pages(store) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {q.slug: q.answer_html + q.lede_html + q.teaser_html for q in store.questions} | {
        c.slug: c.body_html + c.summary_html for c in store.concepts
    }


def test_a_second_start_renders_nothing_and_serves_the_same_pages(
    content: Path, tmp_path: Path
) -> None:
    cache_file = tmp_path / "cache" / "render.json"
    first, cold = load(content, cache_file)
    assert cold.misses > 0 and cold.hits == 0
    assert cache_file.exists()
    second, warm = load(content, cache_file)
    assert warm.misses == 0 and warm.hits == cold.misses
    assert pages(second) == pages(first)
    assert [q.meta for q in second.questions] == [q.meta for q in first.questions]


def test_a_changed_page_is_rendered_again_and_the_others_are_reused(
    content: Path, tmp_path: Path
) -> None:
    cache_file = tmp_path / "render.json"
    first, cold = load(content, cache_file)
    question = first.questions[0]
    source = question.path.read_text()
    answer_start = source.index("## Answer") + len("## Answer\n")
    question.path.write_text(
        source[:answer_start]
        + "A sentence added after the cache was written.\n\n"
        + source[answer_start:]
    )
    second, warm = load(content, cache_file)
    assert (
        "A sentence added after the cache was written."
        in second.question_by_slug[question.slug].answer_html
    )
    assert 0 < warm.misses < cold.misses
    untouched = [q.slug for q in first.questions[1:]] + [c.slug for c in first.concepts]
    assert {slug: pages(second)[slug] for slug in untouched} == {
        slug: pages(first)[slug] for slug in untouched
    }


def test_another_code_version_never_reads_the_file(content: Path, tmp_path: Path) -> None:
    cache_file = tmp_path / "render.json"
    load(content, cache_file, version="old")
    _, other = load(content, cache_file, version="new")
    assert other.hits == 0
    assert read_cache(cache_file)["version"] == "new"


def test_the_version_follows_the_code_and_the_salt(tmp_path: Path) -> None:
    code = tmp_path / "code"
    code.mkdir()
    (code / "render.py").write_text("X = 1\n")
    before = code_version([code])
    assert code_version([code]) == before
    assert code_version([code], salt="assets-2") != before
    (code / "render.py").write_text("X = 2\n")
    assert code_version([code]) != before


def test_a_forged_entry_under_another_version_is_ignored(content: Path, tmp_path: Path) -> None:
    cache_file = tmp_path / "render.json"
    load(content, cache_file)
    data = read_cache(cache_file)
    data["entries"] = {key: ["<script>forged</script>", [], []] for key in data["entries"]}
    data["version"] = "someone else's"
    cache_file.write_text("unsigned\n" + json.dumps(data))
    store, _ = load(content, cache_file)
    assert "forged" not in "".join(pages(store).values())


def test_a_forged_entry_without_the_key_is_ignored(content: Path, tmp_path: Path) -> None:
    """Whoever can write under var/ but does not hold the secret key cannot put a page on the
    site: an entry forged under the right version, signed with another key, is never served."""
    cache_file = tmp_path / "render.json"
    load(content, cache_file)
    data = read_cache(cache_file)
    data["entries"] = {key: ["<script>forged</script>", [], []] for key in data["entries"]}
    forger = RenderCache(cache_file, VERSION, key="a guessed key")
    payload = json.dumps(data, separators=(",", ":")).encode()
    cache_file.write_bytes(forger._sign(payload) + b"\n" + payload)
    store, cache = load(content, cache_file)
    assert cache.hits == 0 and "forged" not in "".join(pages(store).values())
    _, again = load(content, cache_file)  # the file was rewritten, signed with the site's key
    assert again.misses == 0


def test_a_torn_or_garbage_file_is_a_cold_start(content: Path, tmp_path: Path) -> None:
    cache_file = tmp_path / "render.json"
    cache_file.write_text('abc\n{"version": "v1", "entries": {"render:')
    store, cache = load(content, cache_file)
    assert cache.hits == 0 and store.questions
    assert read_cache(cache_file)["version"] == VERSION


def test_invalid_content_writes_no_cache(tmp_path: Path) -> None:
    cache_file = tmp_path / "render.json"
    with pytest.raises(ContentInvalid):
        load(FIXTURES / "figures" / "content", cache_file)
    assert not cache_file.exists()


def test_the_site_loader_reuses_its_cache_for_real_content(tmp_path: Path) -> None:
    cache_file = tmp_path / "render.json"
    content = PROJECT_ROOT / "content"
    first = load_site_content(content, render_cache=cache_file)
    written = cache_file.stat().st_mtime_ns
    second = load_site_content(content, render_cache=cache_file)
    assert cache_file.stat().st_mtime_ns == written  # nothing new: the file is not rewritten
    assert pages(second) == pages(first)


def test_two_processes_starting_at_once_both_load_and_leave_a_whole_file(
    content: Path, tmp_path: Path
) -> None:
    cache_file = tmp_path / "render.json"
    script = (
        "import sys; from pathlib import Path\n"
        "from app.content.loader import load_content\n"
        "from app.content.render_cache import RenderCache\n"
        "from tests.content.test_loader import fake_figure, fake_widget\n"
        f"store = load_content(Path({str(content)!r}), figures=fake_figure, widgets=fake_widget,"
        f" cache=RenderCache(Path({str(cache_file)!r}), {VERSION!r}, key={KEY!r}))\n"
        "print(len(store.questions))\n"
    )
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", script], cwd=PROJECT_ROOT, stdout=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    outputs = [run.communicate(timeout=120)[0] for run in runs]
    assert all(run.returncode == 0 for run in runs)
    assert outputs[0] == outputs[1] and int(outputs[0]) > 0
    _, after = load(content, cache_file)
    assert after.misses == 0


def test_the_card_ranking_is_reused_and_follows_a_changed_page(
    content: Path, tmp_path: Path
) -> None:
    cache_file = tmp_path / "render.json"
    first, _ = load(content, cache_file)
    order = [c.slug for c in first.question_by_slug["first-question"].concepts]
    assert order == ["kv-cache", "paging"]  # the tags it shares with the kv-cache card
    again, warm = load(content, cache_file)
    assert warm.misses == 0
    assert [c.slug for c in again.question_by_slug["first-question"].concepts] == order
    page = content / "questions" / "first-question.md"
    page.write_text(page.read_text().replace("tags: [kv-cache, capacity]", "tags: [paging]"))
    changed, _ = load(content, cache_file)
    assert [c.slug for c in changed.question_by_slug["first-question"].concepts] == [
        "paging",
        "kv-cache",
    ]


def test_a_running_process_stamps_renders_with_the_code_it_started_with(
    content: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Code edited under a running process (a deploy beside it, a developer's save) must not let
    that process stamp what its older code renders with the new code's version: a process
    started on the new code would trust those pages."""
    import app.main

    on_disk = iter(["code-at-start", "code-edited-later"])
    monkeypatch.setattr(app.main, "code_version", lambda *args, **kwargs: next(on_disk))
    app.main.render_code_version.cache_clear()
    for path in content.rglob("*.md"):  # the fixture's stand-in figures → plain numbers
        path.write_text(re.sub(r"\{\{ num value=(\d+) \}\}", r"\1", path.read_text()))
    cache_file = tmp_path / "render.json"
    try:
        load_site_content(content, render_cache=cache_file)
        page = content / "questions" / "first-question.md"
        page.write_text(page.read_text() + "\nA sentence added while the process runs.\n")
        load_site_content(content, render_cache=cache_file)  # a reload: content changed
    finally:
        app.main.render_code_version.cache_clear()
    assert read_cache(cache_file)["version"] == "code-at-start"
