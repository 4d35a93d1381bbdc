"""The bundled runs made again, for a byte-for-byte comparison of logs across a refactor.

    PYTHONPATH=<a checkout> python <the checkout>/tests/same_logs.py OUT NORMALISED.json.gz

makes, with whichever memgate is imported, the runs of fixtures/ (the scripted model over every query,
the keyword baseline, the gated and ungated ablation) and a by-day run consolidated at level 2, with the
scripted model's latency off. `normalised` keeps each record but what differs between two runs of the
same code: run ids, timestamps, timings, hash links and the folders the runs were made in.
tests/data/logs_before_issue50.json.gz holds them as the head before issue 50 (3a86b31) wrote them.
"""
import gzip, hashlib, json, os, re, subprocess, sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
import make_fixture_runs as fixture_runs
from memgate.testing import FakeServer

ROOT = fixture_runs.ROOT
PROJECT = ROOT / 'fixtures' / 'transcripts'
VARIES = {'run', 'ts', 'prev', 'seal', 'elapsed_s', 'latency_s', 'queue_s', 'first_token_s', 'decode_s',
          'sessions_sha'}                                  # the session files' paths and times

def memgate(*args):
    "Run the memgate command line of the imported package; its output if it succeeds."
    env = {**os.environ, 'PYTHONPATH': os.pathsep.join(sys.path)}
    r = subprocess.run([sys.executable, '-m', 'memgate.cli', *args], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    return r.stdout

def make(out: Path):
    "Every bundled run and a consolidated by-day run, under out."
    fixture_runs.LATENCY = False
    fixture_runs.seen.clear()
    common = ('--project', str(PROJECT))
    with FakeServer(gate=fixture_runs.selective_gate, models=('scripted-gate',)) as s:
        model = ('--base-url', s.url, '--model', 'scripted-gate')
        memgate('ingest', *common, *model, '--log-dir', str(out / 'scripted'))
        memgate('ingest', *common, *model, '--query', 'infra-root-causes', '--period', 'day',
                '--consolidate', '--log-dir', str(out / 'by-day'))
    memgate('ingest', *common, '--model', 'keyword-baseline', '--log-dir', str(out / 'baseline'))
    with FakeServer(gate=fixture_runs.rewriting_gate, models=('rewriting-gate',)) as s:
        for mode, name in (('on', 'gated'), ('off', 'ungated')):
            memgate('ingest', *common, '--base-url', s.url, '--model', 'rewriting-gate', '--gate', mode,
                    '--query', 'infra-root-causes', '--log-dir', str(out / name))

def normalised(folder: Path, root: Path = ROOT) -> dict:
    "Each log under folder, by relative path: its records without what differs between runs."
    paths = sorted(folder.rglob('*.jsonl'))
    records = [json.loads(line) for p in paths for line in p.read_text().splitlines()]
    seals = {r[k] for r in records for k in ('seal', 'prev') if k in r}    # and a log's head
    seals |= {hashlib.sha256(line.encode()).hexdigest() for p in paths for line in p.read_text().splitlines()}
    logs = {}
    for p in paths:
        text = p.read_text().replace(str(folder), '<out>').replace(str(root), '<root>')
        text = re.sub(r'\b[0-9a-f]{64}\b', lambda m: '<seal>' if m[0] in seals else m[0], text)
        recs = [{k: v for k, v in json.loads(line).items() if k not in VARIES} for line in text.splitlines()]
        logs[str(p.relative_to(folder))] = recs
    return logs

if __name__ == '__main__':
    out = Path(sys.argv[1]).resolve()
    make(out)
    logs = normalised(out)
    Path(sys.argv[2]).write_bytes(gzip.compress(json.dumps(logs, indent=0).encode(), mtime=0))
    print(f'{len(logs)} logs under {out}, normalised in {sys.argv[2]}')
