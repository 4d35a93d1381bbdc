"""`memgate view` (issue 54): a static site from each memory line down to the session lines behind it: built for the
bundled runs and a period-consolidated run, safe against hostile memories, questions, file names and queries, and
clicked through in a real browser from disk."""
import json, re, shutil
from html.parser import HTMLParser
from pathlib import Path
import pytest
from conftest import FIXTURES
from helpers import memgate
from synth import cc, incident_project, write_jsonl
from memgate.parser import gate_response
from memgate.site import CSP
from memgate.testing import FakeServer, incident_gate

QUERIES = '[incidents]\nquestion = "Which incidents happened, with cause and fix?"\n'
BUNDLED = [FIXTURES / 'runs' / 'scripted', FIXTURES / 'runs' / 'baseline', FIXTURES / 'ablation' / 'gated',
           FIXTURES / 'ablation' / 'ungated']

def ingest(server, project, runs, *args, queries=QUERIES):
    qf = Path(runs).parent / 'queries.toml'
    qf.write_text(queries)
    command, args = ('consolidate', args[1:]) if args and args[0] == 'consolidate' else ('ingest', args)
    return memgate(command, '--project', str(project), '--queries', str(qf), '--base-url', server.url,
                   '--model', 'test-model', '--log-dir', str(runs), '--chunk-tokens', '1200', *args, timeout=300)

def pages(site: Path) -> list[Path]:
    return sorted(site.rglob('*.html'))

def test_the_site_builds_for_the_bundled_runs_and_flags_no_line_they_copied(tmp_path):
    r = memgate('view', *map(str, BUNDLED), '--out', str(tmp_path / 'site'))
    assert r.returncode == 0, r.stderr
    # (the scripted and baseline models copy their lines from evidence: a flag would be a false positive)
    said = r'^455 memory lines of 10 logs traced \(0 unsupported, \d+ session files\): open '
    assert re.search(said, r.stdout), r.stdout
    site = tmp_path / 'site'
    assert len(list((site / 'q').glob('*.html'))) == 10 and len(list((site / 'l').glob('*.html'))) == 455
    assert max(p.stat().st_size for p in site.rglob('*')) < 5_000_000

def level_aware(prompt: str) -> str:
    return incident_gate(prompt, 1024 if '[Memory of period ' in prompt else None)

@pytest.fixture(scope='module')
def period_site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('periods')
    proj = incident_project(tmp / 'home', months=3, incidents=12)
    runs = tmp / 'runs'
    with FakeServer(gate=level_aware) as s:
        assert ingest(s, proj, runs, '--period', 'month').returncode == 0
        r = ingest(s, proj, runs, 'consolidate')
        assert r.returncode == 0, r.stderr
    r = memgate('view', str(runs), '--out', str(tmp / 'site'))
    assert r.returncode == 0, r.stderr
    return tmp / 'site', proj

def test_a_level2_line_is_traced_down_to_the_session_line_behind_it(period_site):
    site, proj = period_site
    q = next(p for p in (site / 'q').glob('*.html') if 'level 2' in p.read_text())
    text = q.read_text()
    assert text.count('<li>2026-0') == 3 and 'INC-0000' in text     # its period memories, its lines
    first = re.search(r'<li id="L1"><a href="\.\./(l/[^"]+)">- (INC-\d+)', text)
    line = (site / first[1]).read_text()
    # the level-2 turn, the period's turn below it, and the record behind it in its session file
    assert re.search(r"<h3>level 2, turn \d+: read period 2026-0\d's memory</h3>", line.replace('&#x27;', "'"))
    assert re.search(r'<h3>period 2026-0\d, turn \d+</h3>', line)
    href = re.search(r'href="\.\./(s/[0-9a-f]{12}\.html)#r(\d+)"', line)
    session = (site / href[1]).read_text()
    sec = re.search(rf'<section id="r{href[2]}">(.*?)</section>', session, re.S)[1]
    assert first[2] in sec and 'class="record"' in sec
    # the line it names is the session file's line that holds the incident
    src = re.search(r'<code>([^<]+\.jsonl)</code>', session)[1]
    assert first[2] in Path(src).read_text().splitlines()[int(href[2]) - 1]

HOSTILE = ('<script>alert(1)</script> "><img src=x onerror=alert(2)> \x1b[2J\x1b]0;pwned\x07 '
           '<a href="javascript:alert(3)">x</a> {{7*7}} \u202e')
ALLOWED = {'html': {'lang'}, 'head': set(), 'meta': {'charset', 'http-equiv', 'content', 'name'}, 'title': set(),
           'link': {'rel', 'href'}, 'body': set(), 'header': set(), 'main': set(), 'a': {'href'},
           'form': {'action', 'method'}, 'input': {'name', 'type', 'placeholder', 'id'}, 'script': {'src'},
           **{t: {'id', 'class'} for t in 'h1 h2 h3 p br small b code pre ul ol li div section span table thead '
              'tbody tr th td'.split()}}

class Checked(HTMLParser):
    "Every element and attribute of a page against the allowlist; inline script text and foreign links refused."
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.bad, self.tag = [], None
    def handle_starttag(self, tag, attrs):
        self.tag = tag
        if tag not in ALLOWED: self.bad.append(tag)
        for k, v in attrs:
            if k not in ALLOWED.get(tag, ()): self.bad.append(f'{tag} {k}')
            if k in ('href', 'src', 'action') and re.match(r'(?i)\s*(?:javascript|data|https?|//)', v or ''):
                self.bad.append(f'{tag} {k}={v}')
        if tag == 'meta' and dict(attrs).get('http-equiv') == 'Content-Security-Policy':
            self.csp = dict(attrs)['content']
    def handle_data(self, data):
        if self.tag == 'script' and data.strip(): self.bad.append('inline script')
        if re.search(r'[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]', data): self.bad.append(repr(data[:40]))

def test_hostile_memories_questions_and_file_names_reach_no_page_as_markup(tmp_path):
    proj = tmp_path / 'home' / 'projects' / '-home-dev-x'
    rows = [cc('user', '2026-01-05T09:00:00.000Z', f'note this: {HOSTILE}', sid='S1'),
            cc('assistant', '2026-01-05T09:00:01.000Z', [dict(type='text', text=f'Noted: {HOSTILE}')], sid='S1')]
    write_jsonl(proj / '<img src=x onerror=alert(4)>.jsonl', rows)
    runs = tmp_path / 'runs'
    question = 'Which <b>incidents</b> "happened"? <script>alert(5)</script>'
    memory = f'- {HOSTILE}\n- <iframe src="javascript:alert(6)"></iframe>'
    with FakeServer(gate=lambda prompt: gate_response(True, memory, think=HOSTILE)) as s:
        r = ingest(s, proj, runs, queries=f'[evil]\nquestion = {json.dumps(question)}\n')
        assert r.returncode == 0, r.stderr
    r = memgate('view', str(runs), '--out', str(tmp_path / 'site'))
    assert r.returncode == 0, r.stderr
    site = tmp_path / 'site'
    assert len(pages(site)) >= 5
    for p in pages(site):
        c = Checked()
        c.feed(p.read_text())
        assert not c.bad and c.csp == CSP, (p, c.bad)
    for p in site.rglob('*.js'):
        # the index's texts are JSON strings: nothing in them ends the string or the script
        text = p.read_text()
        assert '\x1b' not in text and '</script' not in text.lower() or p.parent.name == 'index'
    assert CSP == "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; " \
                  "base-uri 'none'"

def chromium():
    import os
    return os.environ.get('PLAYWRIGHT_CHROMIUM_EXECUTABLE') or next(
        filter(None, map(shutil.which, ('chromium-headless-shell', 'chromium', 'chromium-browser'))), None)

def test_in_a_browser_two_clicks_reach_the_session_line_and_search_finds_a_memory_word(period_site):
    pytest.importorskip('playwright', reason='Playwright is not installed: pip install -e ".[browser]"')
    if not chromium(): pytest.skip('no headless Chromium: apt-get install chromium-headless-shell, or set '
                                   'PLAYWRIGHT_CHROMIUM_EXECUTABLE')
    from playwright.sync_api import sync_playwright
    site, _ = period_site
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium(), args=['--no-sandbox'])
        pg = b.new_page()
        errors = []
        pg.on('console', lambda m: errors.append(m.text) if m.type == 'error' else None)
        pg.goto((site / 'index.html').as_uri())
        # (the first page's load, measured and printed: a figure for the docs, no threshold a loaded machine fails)
        ms = pg.evaluate("performance.getEntriesByType('navigation')[0].duration")
        print(f"first page loaded in {ms:.0f} ms")
        pg.click('text=incidents')
        assert 'level 2' in pg.content()
        word = pg.inner_text('#L1 a').split()[1]                  # INC-00NN
        pg.click('#L1 a')                                         # click 1: the line's trail
        pg.click('.behind a >> nth=0')                            # click 2: the session line behind it
        assert pg.url.startswith('file://') and '#r' in pg.url
        assert word in pg.inner_text(f"section[id='{pg.url.rsplit('#', 1)[1]}']")
        # search from disk: the index is script files; the query kept in the URL, shown only as text
        pg.goto((site / 'search.html').as_uri() + f'?q={word}')
        assert pg.inner_text('#count') != '0 found' and word in pg.inner_text('#results')
        evil = '<img src=x onerror=document.title="pwned">'
        pg.goto((site / 'search.html').as_uri() + '?q=' + evil)
        assert pg.input_value('#q') == evil and pg.title() != 'pwned' and pg.locator('#results img').count() == 0
        assert not errors, errors
        b.close()
