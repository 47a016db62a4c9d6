"""The course website as a reader meets it: built by ``make book``'s script, read in Debian's chromium.

Run with ``make test-browser`` (``COURSE_BROWSER_TEST=1``; chromium through Playwright, never
``playwright install``). The book is built once into a temporary folder, offline, exactly as
``make book`` builds it (both editions: ``en/`` and ``zh/``, issue 32), and served from
127.0.0.1; the browser may not reach any other host, and a page that tries to is a failure (the
site must read well with no network).

What a reader relies on:
* the site's root leads to the English edition; the start page, a lab and the rules page open,
  and every internal link on every page of both editions leads to a page or file that exists,
  at an anchor that exists;
* a rule id in a lab is a link to that rule's anchor on the rules page (the Chinese edition's
  own, docs/zh/rules.md, once it exists; the English one's until then);
* the search box finds the lab that teaches ``firstKeptEntryId``, and on the Chinese edition
  searching 压缩 (compaction) finds Lab 11.4's Chinese page (Sphinx's Chinese search, jieba);
* the glossary page fits a 1280-pixel screen in both editions: every table within the page, the meaning
  column on screen (issue 45); the Chinese edition's footer and navigation name no page in English;
* on the Chinese edition, searching each Chinese word of the glossary (活动路径, 回答预留, 交互组, …)
  finds exactly the pages whose text holds it (issue 45; the counts are printed, ``pytest -s``);
* the language switch on a lab leads to the same lab in the other language, and from a page
  with no counterpart to the other edition's start page;
* every notebook page launches on Binder, on a JupyterHub through nbgitpuller, or downloads the
  committed learner notebook it shows (a Chinese page, the Chinese notebook); no solution is published;
* the explorer's page shows its widget drawn at the defaults and the budgets it discusses.
Screenshots of the start page, a lab, the rules page and a Chinese lab are saved under docs/ (the
README shows some).
"""

from __future__ import annotations

import functools
import html
import http.server
import importlib.util
import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urldefrag, urljoin, urlparse

import pytest
from test_explorer_browser import CHROMIUM, CHROMIUM_FLAGS, STEP_MS

from course_lib.teaching.rules import BY_ID, RULE_ID

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
CHINESE_LAB = "labs/lab_11_4_create_compaction_entry.html"  # what searching 压缩 must find on the Chinese edition
NO_COUNTERPART = "docs/grading.html"  # no docs/zh/grading.md: its switch leads to the Chinese start page
EDITIONS = ("en", "zh")
# A Chinese edition's notebooks and docs, by their path on the site (labs/x.ipynb) and in the repository.
CHINESE_NOTEBOOKS = {
    notebook.relative_to(ROOT).as_posix().replace("/zh/", "/", 1): notebook
    for notebook in [*ROOT.glob("labs/zh/*.ipynb"), *ROOT.glob("notebooks/zh/*.ipynb")]
}
CHINESE_DOCS = sorted(ROOT.glob("docs/zh/*.md"))
_search_spec = importlib.util.spec_from_file_location("chinese_search", ROOT / "book" / "_ext" / "chinese_search.py")
assert _search_spec and _search_spec.loader
chinese_search = importlib.util.module_from_spec(_search_spec)
_search_spec.loader.exec_module(chinese_search)  # the words the book gives jieba (book/_ext is no package)
CHINESE_RULES = (ROOT / "docs" / "zh" / "rules.md").is_file()
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
    print(built.stdout.strip())  # the build's time, each edition's (pytest -s shows it)
    return output


@pytest.fixture(scope="module")
def english(site: Path) -> Path:
    return site / "en"


@pytest.fixture(scope="module")
def chinese(site: Path) -> Path:
    return site / "zh"


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


def test_only_learner_versions_are_published(site: Path, english: Path) -> None:
    """The five learner labs and the four notebooks are pages; no solution is, nor its source."""
    pages = {p.relative_to(english).as_posix() for p in _pages(english)}
    for notebook in [*ROOT.glob("labs/*.ipynb"), *ROOT.glob("notebooks/*.ipynb")]:
        page = notebook.relative_to(ROOT).with_suffix(".html").as_posix()
        assert page in pages
        source = english / "_sources" / notebook.relative_to(ROOT)
        assert source.read_bytes() == notebook.read_bytes(), f"{source} is not the committed {notebook.name}"
    assert not [p for p in site.rglob("*") if "solutions" in p.relative_to(site).parts]
    assert {"docs/rules.html", "docs/grading.html", "index.html", "search.html"} <= pages
    assert sorted(p.name for p in site.iterdir()) == ["en", "index.html", "zh"]  # nothing of the build's own


def test_the_chinese_edition_publishes_the_chinese_notebooks_and_docs_at_the_english_paths(chinese: Path) -> None:
    """Each Chinese learner notebook is the page at its English twin's path; every docs/zh page is published."""
    pages = {p.relative_to(chinese).as_posix() for p in _pages(chinese)}
    assert len(CHINESE_NOTEBOOKS) >= 9
    for path, notebook in CHINESE_NOTEBOOKS.items():
        assert path.removesuffix(".ipynb") + ".html" in pages
        source = chinese / "_sources" / path
        assert source.read_bytes() == notebook.read_bytes(), f"{source} is not the committed {notebook}"
    for doc in CHINESE_DOCS:
        assert f"docs/{doc.stem}.html" in pages, f"{doc} is not published"
    assert {"index.html", "search.html"} <= pages
    assert '<html lang="zh-CN"' in (chinese / CHINESE_LAB).read_text()


def test_the_site_root_leads_to_the_english_edition(site: Path) -> None:
    assert '<meta http-equiv="refresh" content="0; url=en/">' in (site / "index.html").read_text()


def test_no_page_loads_anything_from_another_host(site: Path) -> None:
    """Offline reading: every script, style sheet, image and frame comes with the site (no CDN)."""
    external = re.compile(r"<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)\s*=\s*[\"']?(?:https?:)?//", re.I)
    offenders = {p.relative_to(site).as_posix(): external.findall(p.read_text()) for p in _pages(site)}
    assert {page: found for page, found in offenders.items() if found} == {}


def test_every_rule_has_an_anchor_and_every_cited_rule_id_links_to_it(english: Path) -> None:
    rules = english / "docs" / "rules.html"
    anchors = _Page.read(rules).ids
    assert set(BY_ID) <= anchors, f"rules without an anchor: {sorted(set(BY_ID) - anchors)}"
    assert _rule_links(english, rules, lambda rule_id: rule_id) > 100  # the labs' text and tables cite rules throughout


def test_a_chinese_page_links_rule_ids_to_the_chinese_rules_page_or_else_the_english_one(
    english: Path, chinese: Path
) -> None:
    """docs/zh/rules.md's anchors are its generator's (``#r19``); without that page, the English one's (``#R19``)."""
    anchor: Callable[[str], str]
    if CHINESE_RULES:
        rules, anchor = chinese / "docs" / "rules.html", str.lower
    else:
        rules, anchor = english / "docs" / "rules.html", lambda rule_id: rule_id
    anchors = _Page.read(rules).ids
    assert {anchor(rule_id) for rule_id in BY_ID} <= anchors
    assert _rule_links(chinese, rules, anchor) > 100


def _rule_links(edition: Path, rules: Path, anchor: Callable[[str], str]) -> int:
    """How many rule-id links ``edition``'s pages hold, each to ``rules`` at ``anchor(id)``; no id left unlinked."""
    unlinked: dict[str, list[str]] = {}
    links = 0
    for path in _pages(edition):
        page = _Page.read(path)
        if page.unlinked_rule_ids:
            unlinked[path.relative_to(edition).as_posix()] = page.unlinked_rule_ids
        for href, text in page.rule_links:
            target, fragment = urldefrag(urljoin(path.as_uri(), href))
            assert target == rules.as_uri() and fragment == anchor(text), (path, href, text)
            links += 1
    assert unlinked == {}
    return links


def test_notebook_pages_launch_on_binder_and_a_jupyterhub_and_download(english: Path, chinese: Path) -> None:
    """Binder builds the repository from environment.yml; the hub pulls it with nbgitpuller and opens the same file.

    A Chinese page opens the Chinese notebook (``labs/zh/…``), the one its download button hands out."""
    english_notebooks = {
        n.relative_to(ROOT).as_posix(): n for n in [*ROOT.glob("labs/*.ipynb"), *ROOT.glob("notebooks/*.ipynb")]
    }
    pages = [(english, path, notebook) for path, notebook in english_notebooks.items()]
    pages += [(chinese, path, notebook) for path, notebook in CHINESE_NOTEBOOKS.items()]
    for edition, site_path, notebook in pages:
        path = notebook.relative_to(ROOT).as_posix()
        page = _Page.read(edition / Path(site_path).with_suffix(".html"))
        binder = [h for h in page.hrefs if h.startswith("https://mybinder.org/")]
        assert binder == [f"https://mybinder.org/v2/gh/course-test/chapter11/main?urlpath=lab/tree/{path}"]
        hub = [urlparse(h) for h in page.hrefs if h.startswith(HUB)]
        assert [u.path for u in hub] == ["/hub/user-redirect/git-pull"]
        assert parse_qs(hub[0].query) == {
            "repo": [REPOSITORY],
            "urlpath": [f"lab/tree/chapter11/{path}"],
            "branch": ["main"],
        }
        assert any(urljoin(f"/{site_path}", h) == f"/_sources/{site_path}" for h in page.hrefs), f"{path}: no download"


def test_the_explorer_page_draws_its_widget_without_a_kernel(english: Path) -> None:
    """The sliders need a kernel; the page shows the bar, reason and table at the defaults and at every budget discussed."""
    site = english
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
    if not _chinese_fonts():
        pytest.fail("no Chinese font: `make test-browser` installs one (apt-get install -y fonts-wqy-microhei)")
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
            # The site's root leads to the English edition.
            page.goto(base_url, wait_until="load")
            page.wait_for_url(f"{base_url}en/")
            playwright.expect(page.locator("article h1").first).to_be_visible()

            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            pictures = (
                ("start", "en/"),
                ("lab", f"en/{LAB}"),
                ("rules", "en/docs/rules.html"),
                ("lab-zh", f"zh/{LAB}"),
            )
            for name, start in pictures:
                response = page.goto(base_url + start, wait_until="load")
                assert response is not None and response.ok, start
                playwright.expect(page.locator("article h1").first).to_be_visible()
                if name.startswith("lab"):  # the picture shows where a page is launched from
                    page.locator(".dropdown-launch-buttons button").click()
                    playwright.expect(page.locator(".dropdown-launch-buttons a", has_text="JupyterHub")).to_be_visible()
                page.screenshot(path=str(SCREENSHOTS / f"book-{name}.png"))
            _every_internal_link_resolves(page, [f"{base_url}{edition}/" for edition in EDITIONS])

            # The language switch on a lab leads to the same lab in the other language, and back.
            page.goto(f"{base_url}en/{LAB}", wait_until="load")
            page.locator("a.language-switch", has_text="中文").click()
            page.wait_for_url(f"{base_url}zh/{LAB}")
            playwright.expect(page.locator("html")).to_have_attribute("lang", "zh-CN")
            playwright.expect(page.locator("article h1").first).to_contain_text("Lab 11.3")
            playwright.expect(page.locator("article h1").first).to_contain_text("从完整的历史得到有界的输入")
            page.locator("a.language-switch", has_text="English").click()
            page.wait_for_url(f"{base_url}en/{LAB}")
            # A page with no Chinese counterpart switches to the Chinese start page.
            page.goto(f"{base_url}en/{NO_COUNTERPART}", wait_until="load")
            page.locator("a.language-switch", has_text="中文").click()
            page.wait_for_url(f"{base_url}zh/index.html")

            # A rule id in the lab's text is a link to the rule's own paragraph, in both editions.
            page.goto(f"{base_url}zh/{LAB}", wait_until="load")
            page.locator("article p a.rule-link", has_text=re.compile(r"^R19$")).first.click()
            rules, r19 = ("zh", "r19") if CHINESE_RULES else ("en", "R19")
            page.wait_for_url(f"{base_url}{rules}/docs/rules.html#{r19}")
            playwright.expect(page.locator(f"[id='{r19}']")).to_be_attached()
            page.goto(f"{base_url}en/{LAB}", wait_until="load")
            r19 = page.locator("article p a.rule-link", has_text=re.compile(r"^R19$")).first
            r19.click()
            page.wait_for_url(re.compile(r"/docs/rules\.html#R19$"))
            playwright.expect(page.locator("[id='R19']")).to_contain_text("Groups are taken newest first")

            # The search box, as a reader uses it: open it, type, Enter, follow the lab it finds.
            _search(page, f"{base_url}en/", "firstKeptEntryId", TEACHES_FIRST_KEPT)
            playwright.expect(page.locator("article")).to_contain_text("firstKeptEntryId")
            # The Chinese edition's search splits Chinese words (jieba): 压缩 finds Lab 11.4's Chinese page.
            _search(page, f"{base_url}zh/", "压缩", CHINESE_LAB)
            playwright.expect(page.locator("article")).to_contain_text("压缩")
        except Exception:
            page.screenshot(path=str(tmp_path / "failure.png"), full_page=True)
            print(f"page at the failure: {tmp_path / 'failure.png'}")
            raise
        finally:
            browser.close()
    assert blocked == [], f"pages asked for other hosts: {sorted(set(blocked))}"


def test_every_glossary_word_finds_every_chinese_page_that_holds_it(base_url: str, chinese: Path) -> None:
    """Sphinx's search page on the Chinese edition, one glossary word at a time: the pages it lists are the
    pages whose article holds the word (jieba splits the index by the glossary's words, book/_ext/chinese_search.py)."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test-browser` installs it (apt-get install -y chromium)")
    articles = {
        path.relative_to(chinese).as_posix(): _article_text(path)
        for path in _pages(chinese)
        if path.name not in {"search.html", "genindex.html"}
    }
    words: list[str] = chinese_search.glossary_words()
    assert {"活动路径", "回答预留", "安全余量", "保留起点", "交互组", "切点"} <= set(words)
    holding = {word: {page for page, text in articles.items() if word in text} for word in words}
    found: dict[str, set[str]] = {}
    with playwright.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS, timeout=STEP_MS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.set_default_timeout(STEP_MS)
        try:
            for word in words:
                page.goto(f"{base_url}zh/search.html?q={word}", wait_until="load")
                playwright.expect(page.locator("#search-results p.search-summary")).not_to_be_empty()
                hrefs = page.eval_on_selector_all("#search-results ul.search > li > a", "els => els.map(a => a.href)")
                found[word] = {urldefrag(href)[0].split("?", 1)[0].removeprefix(f"{base_url}zh/") for href in hrefs}
        finally:
            browser.close()
    print("\n| term | pages found | pages holding it |\n|---|---|---|")
    for word in words:
        print(f"| {word} | {len(found[word])} | {len(holding[word])} |")
    assert {word: sorted(found[word] ^ holding[word]) for word in words if found[word] != holding[word]} == {}


def test_the_glossary_fits_a_1280_pixel_screen_in_both_editions(base_url: str) -> None:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test-browser` installs it (apt-get install -y chromium)")
    with playwright.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS, timeout=STEP_MS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.set_default_timeout(STEP_MS)
        try:
            for edition, meaning in (("en", "meaning"), ("zh", "含义")):
                page.goto(f"{base_url}{edition}/docs/glossary.html", wait_until="load")
                tables = page.eval_on_selector_all(
                    "article table", "ts => ts.map(t => [t.scrollWidth, t.parentElement.clientWidth])"
                )
                assert len(tables) >= 5 and all(wide <= room for wide, room in tables), (edition, tables)
                right = page.locator("article table th", has_text=meaning).first.evaluate(
                    "th => th.getBoundingClientRect().right"
                )
                assert right <= 1280, f"{edition}: the {meaning} column ends at {right} px"
        finally:
            browser.close()


def test_the_chinese_edition_names_its_author_and_its_pages_in_chinese(chinese: Path) -> None:
    """The footer's author and every page's name in the navigation are Chinese (a lab's id aside)."""
    han = re.compile(r"[\u4e00-\u9fff]")
    start = (chinese / "index.html").read_text(encoding="utf-8")
    assert "第 11 章课程包" in start and "course pack" not in start
    navigation = re.search(r'<nav class="[^"]*bd-docs-nav.*?</nav>', start, re.S)
    assert navigation, "no navigation on the Chinese start page"
    names = [
        html.unescape(re.sub(r"<[^>]+>", "", link)) for link in re.findall(r"<a [^>]*>(.*?)</a>", navigation[0], re.S)
    ]
    assert len(names) >= 12 and [name for name in names if not han.search(name)] == []


def _article_text(path: Path) -> str:
    """A built page's article as text: what Sphinx indexes of it (its title, prose, code and outputs)."""
    page = path.read_text(encoding="utf-8")
    start, end = page.find("<article"), page.rfind("</article>")
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", page[start:end], flags=re.S | re.I)
    return html.unescape(re.sub(r"<[^>]+>", "", body))


def _chinese_fonts() -> list[str]:
    """The fonts fontconfig (so chromium) has for Chinese: without one, the Chinese pages draw boxes."""
    listed = subprocess.run(["fc-list", ":lang=zh", "family"], capture_output=True, text=True, check=False)
    return [line for line in listed.stdout.splitlines() if line.strip()]


def _search(page: Page, edition_url: str, query: str, expected: str) -> None:
    """On the edition at ``edition_url``: open the search box, type ``query``, Enter, follow the result ``expected``."""
    page.goto(edition_url, wait_until="load")
    page.locator(".search-button-field").first.click()
    box = page.locator("form.bd-search input[name='q']").locator("visible=true").first
    box.fill(query)
    box.press("Enter")
    page.wait_for_url(f"{edition_url}search.html?q=*")
    assert parse_qs(urlparse(page.url).query)["q"] == [query]
    found = page.locator(f"#search-results a[href*='{expected}']").first
    playwright.expect(found).to_be_visible()
    found.click()
    page.wait_for_url(re.compile(re.escape(edition_url + expected)))


def _every_internal_link_resolves(page: Page, starts: list[str]) -> None:
    """Crawl the site from the start pages: every internal href answers 200, and its #fragment is an id there."""
    base_url = starts[0].rsplit("/", 2)[0] + "/"
    ids: dict[str, set[str]] = {}
    queue, seen = list(starts), set(starts)
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
            if (target.endswith(".html") or target in starts) and target not in seen:
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
    assert len(ids) >= 24 and len(links) > 1000  # both editions were walked, not one page


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
