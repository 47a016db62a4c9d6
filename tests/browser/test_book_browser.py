"""The course website as a reader meets it: built by ``make book``'s script, read in Debian's chromium.

Run with ``make test-browser`` (``COURSE_BROWSER_TEST=1``; chromium through Playwright, never
``playwright install``). The book is built once into a temporary folder, offline, exactly as
``make book`` builds it, and served from 127.0.0.1; the browser may not reach any other host,
and a page that tries to is a failure (the site must read well with no network).

What a reader relies on:
* the start page, a lab and the rules page open, and every internal link on every page of the
  site leads to a page or file that exists, at an anchor that exists;
* a rule id in a lab is a link to that rule's anchor on the rules page;
* the search box finds the lab that teaches ``firstKeptEntryId``;
* every notebook page launches on Binder, on a JupyterHub through nbgitpuller, or downloads the
  committed learner notebook; no solution is published;
* the explorer's page shows its widget drawn at the defaults and the budgets it discusses.
Screenshots of the start page, a lab and the rules page are saved under docs/ (the README shows one).
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urldefrag, urljoin, urlparse

import pytest
from test_explorer_browser import CHROMIUM, CHROMIUM_FLAGS, STEP_MS

from course_lib.rules import BY_ID, RULE_ID

if TYPE_CHECKING:
    from playwright.sync_api import Page, Route

playwright = pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.book

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = Path(os.environ.get("BOOK_SCREENSHOTS", ROOT / "docs"))
HUB = "https://hub.course-test.example"
REPOSITORY = "https://github.com/course-test/chapter11"
BUILD_S = 300
LAB = "labs/lab_11_3_build_context.html"  # cites R19 in its text and in its checklist table
TEACHES_FIRST_KEPT = "labs/lab_11_4_create_compaction_entry.html"  # writes firstKeptEntryId (R27)
# Inside these a rule id is quoted (code, a message as printed) or already a link; everywhere else it must link.
QUOTED_TAGS = frozenset({"a", "code", "pre", "kbd", "samp", "script", "style", "textarea", "svg", "head", "title"})


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The website, built from the committed notebooks and docs by scripts/build_book.py (what `make book` runs)."""
    output = tmp_path_factory.mktemp("book") / "site"
    environment = {**os.environ, "BOOK_JUPYTERHUB_URL": HUB, "BOOK_REPOSITORY_URL": REPOSITORY}
    built = subprocess.run(
        [sys.executable, "scripts/build_book.py", str(output)],
        cwd=ROOT, env=environment, capture_output=True, text=True, timeout=BUILD_S,
    )  # fmt: skip
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    return output


@pytest.fixture(scope="module")
def base_url(site: Path) -> Iterator[str]:
    """The built site over HTTP on 127.0.0.1, as a static host serves it."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        """Requests are not logged: the test reports what failed."""


def _pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


# ---- what the built files hold (no browser needed) ----


def test_only_learner_versions_are_published(site: Path) -> None:
    """The five learner labs and the four notebooks are pages; no solution is, nor its source."""
    pages = {p.relative_to(site).as_posix() for p in _pages(site)}
    for notebook in [*ROOT.glob("labs/*.ipynb"), *ROOT.glob("notebooks/*.ipynb")]:
        page = notebook.relative_to(ROOT).with_suffix(".html").as_posix()
        assert page in pages
        source = site / "_sources" / notebook.relative_to(ROOT)
        assert source.read_bytes() == notebook.read_bytes(), f"{source} is not the committed {notebook.name}"
    assert not [p for p in site.rglob("*") if "solutions" in p.relative_to(site).parts]
    assert {"docs/rules.html", "docs/grading.html", "index.html", "search.html"} <= pages


def test_no_page_loads_anything_from_another_host(site: Path) -> None:
    """Offline reading: every script, style sheet, image and frame comes with the site (no CDN)."""
    external = re.compile(r"<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)\s*=\s*[\"']?(?:https?:)?//", re.I)
    offenders = {p.relative_to(site).as_posix(): external.findall(p.read_text()) for p in _pages(site)}
    assert {page: found for page, found in offenders.items() if found} == {}


def test_every_rule_has_an_anchor_and_every_cited_rule_id_links_to_it(site: Path) -> None:
    rules = site / "docs" / "rules.html"
    anchors = _Page.read(rules).ids
    assert set(BY_ID) <= anchors, f"rules without an anchor: {sorted(set(BY_ID) - anchors)}"
    unlinked: dict[str, list[str]] = {}
    links = 0
    for path in _pages(site):
        page = _Page.read(path)
        if page.unlinked_rule_ids:
            unlinked[path.relative_to(site).as_posix()] = page.unlinked_rule_ids
        for href, text in page.rule_links:
            target, fragment = urldefrag(urljoin(path.as_uri(), href))
            assert target == rules.as_uri() and fragment == text, (path, href, text)
            links += 1
    assert unlinked == {}
    assert links > 100  # the labs' text and checklist tables cite rules throughout


def test_notebook_pages_launch_on_binder_and_a_jupyterhub_and_download(site: Path) -> None:
    """Binder builds the repository from environment.yml; the hub pulls it with nbgitpuller and opens the same file."""
    for notebook in [*ROOT.glob("labs/*.ipynb"), *ROOT.glob("notebooks/*.ipynb")]:
        path = notebook.relative_to(ROOT).as_posix()
        page = _Page.read(site / notebook.relative_to(ROOT).with_suffix(".html"))
        binder = [h for h in page.hrefs if h.startswith("https://mybinder.org/")]
        assert binder == [f"https://mybinder.org/v2/gh/course-test/chapter11/main?urlpath=lab/tree/{path}"]
        hub = [urlparse(h) for h in page.hrefs if h.startswith(HUB)]
        assert [u.path for u in hub] == ["/hub/user-redirect/git-pull"]
        assert parse_qs(hub[0].query) == {
            "repo": [REPOSITORY],
            "urlpath": [f"lab/tree/chapter11/{path}"],
            "branch": ["main"],
        }
        assert any(urljoin(f"/{path}", h) == f"/_sources/{path}" for h in page.hrefs), f"{path}: no download link"


def test_the_explorer_page_draws_its_widget_without_a_kernel(site: Path) -> None:
    """The sliders need a kernel; the page shows the bar, reason and table at the defaults and at every budget discussed."""
    text = (site / "notebooks" / "01_projection_explorer.html").read_text()
    assert "need a live kernel" in text
    assert text.count("<svg class='budget-bar'") >= 7  # the defaults, 30, 38, reserved 8, 19, the two other scenarios
    assert text.count("class='projection-rows'") >= 7
    assert "VBox(" not in text and "widget-view" not in text  # no widget repr or dead widget placeholder
    assert "live kernel" in (site / "notebooks" / "03_your_own_session.html").read_text()


# ---- the site in a browser ----


def test_a_reader_follows_links_rule_ids_and_search(base_url: str, tmp_path: Path) -> None:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test-browser` installs it (apt-get install -y chromium)")
    playwright.expect.set_options(timeout=STEP_MS)
    blocked: list[str] = []

    def only_this_site(route: Route) -> None:
        url = route.request.url
        if url.startswith(base_url):
            route.continue_()
        else:
            blocked.append(url)
            route.abort()

    with playwright.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS, timeout=STEP_MS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.set_default_timeout(STEP_MS)
        page.route("**/*", only_this_site)
        try:
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            for name, start in (("start", ""), ("lab", LAB), ("rules", "docs/rules.html")):
                response = page.goto(base_url + start, wait_until="load")
                assert response is not None and response.ok, start
                playwright.expect(page.locator("article h1").first).to_be_visible()
                if name == "lab":  # the picture shows where a page is launched from
                    page.locator(".dropdown-launch-buttons button").click()
                    playwright.expect(page.locator(".dropdown-launch-buttons a", has_text="JupyterHub")).to_be_visible()
                page.screenshot(path=str(SCREENSHOTS / f"book-{name}.png"))
            _every_internal_link_resolves(page, base_url)

            # A rule id in the lab's text is a link to the rule's own paragraph.
            page.goto(base_url + LAB, wait_until="load")
            r19 = page.locator("article p a.rule-link", has_text=re.compile(r"^R19$")).first
            r19.click()
            page.wait_for_url(re.compile(r"/docs/rules\.html#R19$"))
            playwright.expect(page.locator("[id='R19']")).to_contain_text("Groups are taken newest first")

            # The search box, as a reader uses it: open it, type, Enter, follow the lab it finds.
            page.goto(base_url, wait_until="load")
            page.locator(".search-button-field").first.click()
            box = page.locator("form.bd-search input[name='q']").locator("visible=true").first
            box.fill("firstKeptEntryId")
            box.press("Enter")
            page.wait_for_url(re.compile(r"/search\.html\?q=firstKeptEntryId"))
            found = page.locator(f"#search-results a[href*='{TEACHES_FIRST_KEPT}']").first
            playwright.expect(found).to_be_visible()
            found.click()
            page.wait_for_url(re.compile(re.escape(TEACHES_FIRST_KEPT)))
            playwright.expect(page.locator("article")).to_contain_text("firstKeptEntryId")
        except Exception:
            page.screenshot(path=str(tmp_path / "failure.png"), full_page=True)
            print(f"page at the failure: {tmp_path / 'failure.png'}")
            raise
        finally:
            browser.close()
    assert blocked == [], f"pages asked for other hosts: {sorted(set(blocked))}"


def _every_internal_link_resolves(page: Page, base_url: str) -> None:
    """Crawl the site from the start page: every internal href answers 200, and its #fragment is an id there."""
    ids: dict[str, set[str]] = {}
    queue, seen = [base_url], {base_url}
    links: list[tuple[str, str, str]] = []
    while queue:
        url = queue.pop()
        response = page.goto(url, wait_until="domcontentloaded")
        assert response is not None and response.ok, url
        ids[url] = set(page.eval_on_selector_all("[id]", "els => els.map(e => e.id)"))
        for href in page.eval_on_selector_all("a[href]", "els => els.map(a => a.href)"):
            if not href.startswith(base_url):
                continue
            target, fragment = urldefrag(href)
            target = target.split("?", 1)[0]
            links.append((url, target, fragment))
            if (target.endswith(".html") and target not in seen) or (target == base_url and target not in seen):
                seen.add(target)
                queue.append(target)
    broken: list[tuple[str, str, int | str]] = []
    for source, target, fragment in links:
        if target not in ids:
            status = page.request.get(target).status
            if status != 200:
                broken.append((source, target, status))
        elif fragment and fragment not in ids[target]:
            broken.append((source, f"{target}#{fragment}", "no such anchor"))
    assert broken == []
    assert len(ids) >= 12 and len(links) > 500  # the whole site was walked, not one page


class _Page(HTMLParser):
    """One built page: its ids, hrefs, rule-id links, and rule ids left as plain prose."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.hrefs: list[str] = []
        self.rule_links: list[tuple[str, str]] = []
        self.unlinked_rule_ids: list[str] = []
        self._open: list[tuple[str, str | None]] = []

    @classmethod
    def read(cls, path: Path) -> _Page:
        page = cls()
        page.feed(path.read_text())
        page.close()
        return page

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(values["id"] or "")
        if tag == "a" and values.get("href"):
            self.hrefs.append(values["href"] or "")
        if tag not in {"br", "hr", "img", "input", "link", "meta", "source", "wbr", "col", "area", "base"}:
            self._open.append((tag, values.get("href") if "rule-link" in (values.get("class") or "") else None))

    def handle_endtag(self, tag: str) -> None:
        while self._open:
            if self._open.pop()[0] == tag:
                break

    def handle_data(self, data: str) -> None:
        if self._open and self._open[-1][1] is not None:
            self.rule_links.append((self._open[-1][1] or "", data))
        elif not any(tag in QUOTED_TAGS for tag, _ in self._open):
            self.unlinked_rule_ids += [m for m in RULE_ID.findall(data) if m in BY_ID]
