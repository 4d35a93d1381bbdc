"""`memgate view` on a long run: a scripted model over a synthetic project of many sessions, then the site built from
its log, measured: the turns, the build's seconds, the files written, the largest file, the search index's parts, and
the first page's load in Chromium when one is installed (issue 54: "on a 10,000-turn run no file is over 5 MB, the
search index is split, and the first page opens in under a second").

    python bench/view_site.py [--incidents 6000] [--out /tmp/view-bench]
"""
import argparse, os, shutil, subprocess, sys, time
from pathlib import Path
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / 'tests'))
from synth import incident_project                          # noqa: E402
from memgate.log import read_log                             # noqa: E402
from memgate.site import build_site                          # noqa: E402
from memgate.testing import FakeServer, incident_gate        # noqa: E402

def chromium() -> str | None:
    return os.environ.get('PLAYWRIGHT_CHROMIUM_EXECUTABLE') or next(
        filter(None, map(shutil.which, ('chromium-headless-shell', 'chromium', 'chromium-browser'))), None)

def first_page_ms(index: Path) -> float | None:
    "Milliseconds from navigation to the first page's load, in headless Chromium; None without one."
    try: from playwright.sync_api import sync_playwright
    except ImportError: return None
    if not chromium(): return None
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium(), args=['--no-sandbox'])
        pg = b.new_page()
        pg.goto(index.as_uri())
        ms = pg.evaluate("performance.getEntriesByType('navigation')[0].duration")
        b.close()
    return ms

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--incidents', type=int, default=6000)
    ap.add_argument('--out', default='/tmp/view-bench')
    a = ap.parse_args()
    out = Path(a.out)
    shutil.rmtree(out, ignore_errors=True)
    proj = incident_project(out / 'home', months=12, incidents=a.incidents, per_session=2, filler=1)
    qf = out / 'queries.toml'
    qf.write_text('[incidents]\nquestion = "Which incidents happened, with cause and fix?"\n')
    runs = out / 'runs'
    t0 = time.monotonic()
    with FakeServer(gate=lambda p: incident_gate(p, 1024)) as s:
        r = subprocess.run([sys.executable, '-m', 'memgate.cli', 'ingest', '--project', str(proj), '--queries',
                            str(qf), '--base-url', s.url, '--model', 'test-model', '--log-dir', str(runs),
                            '--chunk-tokens', '200', '--quiet'], capture_output=True, text=True)
    if r.returncode: raise SystemExit(r.stderr[-2000:])
    log = next(runs.rglob('incidents.jsonl'))
    turns = sum(e['kind'] == 'gate' for e in read_log(log).events)
    print(f"ingest: {turns:,} turns in {time.monotonic() - t0:.0f} s; log {log.stat().st_size / 2**20:.1f} MB")
    t0 = time.monotonic()
    got = build_site([str(runs)], out / 'site', said=lambda m: None)
    took = time.monotonic() - t0
    files = [p for p in (out / 'site').rglob('*') if p.is_file()]
    big = max(files, key=lambda p: p.stat().st_size)
    parts = len(list((out / 'site' / 'index').glob('*.js')))
    print(f"site: {got['lines']} memory lines, {got['sessions']:,} session files, {len(files):,} files, "
          f"{sum(p.stat().st_size for p in files) / 2**20:.1f} MB in {took:.1f} s; largest "
          f"{big.relative_to(out / 'site')} {big.stat().st_size / 2**20:.2f} MB; search index in {parts} part(s)")
    ms = first_page_ms(out / 'site' / 'index.html')
    print(f"first page: {ms:.0f} ms in Chromium" if ms is not None else "first page: no Chromium to load it in")

if __name__ == '__main__': main()
