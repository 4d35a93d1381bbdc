"What the planted-secret tests read back: every output a run over a project writes or prints, and a secret's pieces."
import json
from memgate.testing import FakeServer
from helpers import memgate

def every_output(project, tmp_path) -> dict[str, str]:
    "Name: text of what `ingest` (recording on) sent, wrote and printed, and of `show`, `chunks`, `export`, `report`."
    rec, runs = tmp_path / 'recording.jsonl', tmp_path / 'runs'
    with FakeServer() as s:
        r = memgate('ingest', '--project', project, '--base-url', s.url, '--model', 'test-model', '--log-dir', runs,
                    '--chunk-tokens', 400, '--answer', MEMGATE_RECORD=str(rec))
        bodies = json.dumps(s.requests)
    assert r.returncode == 0, r.stderr
    out = {'request bodies': bodies, 'ingest stdout': r.stdout, 'ingest stderr': r.stderr, 'recording': rec.read_text()}
    out.update({f'log {p.name}': p.read_text() for p in runs.rglob('*.jsonl')})
    for fmt in ('text', 'md', 'json'):
        shown = memgate('show', runs, '--format', fmt, '--evidence')
        out[f'show {fmt}'] = shown.stdout + shown.stderr
    for fmt in ('text', 'json'):
        chunks = memgate('chunks', '--project', project, '--format', fmt)
        out[f'chunks {fmt}'] = chunks.stdout + chunks.stderr
    export = memgate('export', runs, '--project', project, '--out', tmp_path / 'train.jsonl')
    assert export.returncode == 0, export.stderr
    out['export'] = (tmp_path / 'train.jsonl').read_text()
    assert memgate('report', runs, '--out', tmp_path / 'report').returncode == 0
    out.update({f'report {p.name}': p.read_text() for p in (tmp_path / 'report').glob('*.html')})
    return out

def pieces(secret: str, n: int = 12) -> set[str]:
    "Every n-character piece of each line of `secret` (a wrapped one leaks by its lines), or a short line whole."
    out = set()
    for line in secret.replace('\\n', '\n').split('\n'):
        line = line.strip()
        if line.startswith('-----') or len(line) < 6: continue        # a PEM's armour lines say only what it is
        out |= {line[i:i + n] for i in range(len(line) - n + 1)} if len(line) >= n else {line}
    return out
