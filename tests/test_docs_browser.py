"""The docs site in a real browser: every page of _docs/ opened in headless Chromium, offline (issue 25).

A page fails on a console error, an uncaught exception, a failed request, a request off this machine, an image that
did not load, a code line that runs off the page, a second search box, or a search that finds nothing (or an excerpt
of the theme's buttons) for a word that is on the page. The index is screenshotted. Chromium comes from the system
(`PLAYWRIGHT_CHROMIUM_EXECUTABLE`, or `chromium-headless-shell` / `chromium` on the PATH: Playwright's own download
cannot be had here); without it, or without Playwright (`pip install -e ".[browser]"`), the test is skipped saying why.
"""
import functools, http.server, os, re, shutil, subprocess, sys, threading
from urllib.parse import urlsplit
import pytest
from conftest import ROOT

DOCS = ROOT / '_docs'
FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
         '--disable-component-update', '--disable-sync']      # without them Chromium calls home at every start
THEME_WORDS = 'System Settings Light Dark'                      # the theme switcher's labels, not a page's words

def chromium() -> str | None:
    "The system's headless Chromium, if there is one."
    if (given := os.environ.get('PLAYWRIGHT_CHROMIUM_EXECUTABLE')): return given
    return next(filter(None, map(shutil.which, ('chromium-headless-shell', 'chromium', 'chromium-browser'))), None)

@pytest.fixture(scope='module')
def site():
    "_docs/ (built first if it is not there) served on 127.0.0.1: its base URL."
    pytest.importorskip('playwright', reason='Playwright is not installed: pip install -e ".[browser]"')
    if not chromium(): pytest.skip('no headless Chromium: apt-get install chromium-headless-shell, or set '
                                   'PLAYWRIGHT_CHROMIUM_EXECUTABLE')
    if not (DOCS / 'index.html').is_file():
        subprocess.run([sys.executable, ROOT / 'tools' / 'docs.py'], check=True, capture_output=True)
    handler = functools.partial(QuietHandler, directory=str(DOCS))
    httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f'http://127.0.0.1:{httpd.server_port}/'
    httpd.shutdown()

class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a): pass

@pytest.fixture(scope='module')
def browser(site):
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium(), args=FLAGS)
        yield b
        b.close()

class Watched:
    "A page with everything it reports collected: console errors, exceptions, failed and off-machine requests."
    def __init__(self, browser):
        self.page = browser.new_page(viewport=dict(width=1280, height=900))
        self.problems = []
        self.page.on('console', lambda m: m.type in ('error', 'warning') and self.problems.append(f'console: {m.text}'))
        self.page.on('pageerror', lambda e: self.problems.append(f'exception: {e}'))
        self.page.on('requestfailed', lambda r: self.problems.append(f'failed: {r.url} {r.failure}'))
        self.page.route('**/*', self.local_only)

    def local_only(self, route):
        "Let requests to this machine through; note and refuse any other."
        url = route.request.url
        if urlsplit(url).hostname in ('127.0.0.1', None) or url.startswith('data:'): return route.continue_()
        self.problems.append(f'remote: {url}')
        route.abort()

    def open(self, url: str):
        self.problems.clear()
        self.page.goto(url, wait_until='networkidle')
        return self.page

def pages() -> list[str]:
    return sorted(p.name for p in DOCS.glob('*.html') if p.name not in ('search.html', 'genindex.html'))

BROKEN_IMAGES = "[...document.images].filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src)"
# A code block or a table may scroll inside itself or a wrapper; what must not happen is content wider than its column
# with nothing around it that scrolls, or a page wider than the window.
OVERFLOWING = """[...document.querySelectorAll('article pre, article table, article img')].filter(e => {
  const col = e.closest('article'), right = col.getBoundingClientRect().right;
  if (e.getBoundingClientRect().right <= right + 1) return false;
  for (let a = e.parentElement; a && a !== col; a = a.parentElement)
    if (['auto', 'scroll'].includes(getComputedStyle(a).overflowX)) return false;    // it scrolls: nothing is lost
  return true;
}).map(e => e.textContent.slice(0, 60)).concat(
  document.documentElement.scrollWidth > window.innerWidth ? ['the page is wider than the window'] : [])"""
SEARCH_BOXES = """[...document.querySelectorAll('input[type=search], input[name=q], .search-button-field')]
  .filter(e => e.offsetParent !== null).length"""

def test_every_page_opens_offline_with_no_error_no_failed_request_and_its_images_loaded(browser, site):
    w, seen = Watched(browser), {}
    for name in pages():
        page = w.open(site + name)
        broken = page.evaluate(BROKEN_IMAGES)
        seen[name] = (list(w.problems), broken, page.evaluate(OVERFLOWING), page.evaluate(SEARCH_BOXES))
    assert len(seen) >= 27, sorted(seen)
    bad = {n: s for n, s in seen.items() if s[0] or s[1] or s[2] or s[3] != 1}
    assert not bad, bad

def test_a_word_on_each_page_finds_it_with_an_excerpt_of_the_page(browser, site):
    w, missing = Watched(browser), {}
    for name in pages():
        page = w.open(site + name)
        title = page.evaluate("document.querySelector('article h1').textContent")
        word = max(re.findall(r'[A-Za-z]{5,}', title) or ['memgate'], key=len).lower()
        results = w.open(f'{site}search.html?q={word}')
        results.wait_for_function("document.querySelector('#search-results p.search-summary, .search-summary')"
                                  " !== null", timeout=15_000)
        found = results.evaluate("""[...document.querySelectorAll('#search-results li')].map(li => [
            li.querySelector('a').getAttribute('href'), (li.querySelector('p.context') || {}).textContent || ''])""")
        mine = [text for href, text in found if href.split('#')[0].split('?')[0] == name]
        if not mine or THEME_WORDS in mine[0] or w.problems: missing[name] = (word, found[:3], list(w.problems))
    assert not missing, missing

def test_the_index_screenshot_shows_the_page(browser, site, tmp_path):
    w = Watched(browser)
    page = w.open(site + 'index.html')
    shot = page.screenshot(path=tmp_path / 'index.png', full_page=False)
    assert shot[:8] == b'\x89PNG\r\n\x1a\n' and len(shot) > 20_000 and not w.problems
    assert page.evaluate("document.querySelector('article h1').textContent").startswith('memgate')
