"Builders and command runners shared by the tests."
import json, os, re, subprocess, sys
from pathlib import Path
from memgate.parser import gate_response
from memgate.domain import Chunk, Record, Role
from memgate.queries import Query

ROOT = Path(__file__).resolve().parent.parent
QUERY = Query('infra', 'Which infrastructure failures happened, with root cause and fix?')

def make_chunks(n, prefix='step'):
    "n small distinct chunks, t = 1..n."
    return [Chunk.from_records(i, [Record(Role.user, f'{prefix} {i}: run the migration', 's.jsonl', f'u{i}'),
                                   Record(Role.tool_result, f'{prefix} {i}: exit code {i % 3}', 's.jsonl', f'r{i}')])
            for i in range(1, n + 1)]

def yes(mem, exit=False): return gate_response(True, mem, exit, think='useful')
def no(prev='', exit=False): return gate_response(False, prev, exit, think='nothing new')

def clean_env(**extra):
    "The environment without MEMGATE_/OPENAI_ variables (a developer's own settings must not leak in), plus `extra`."
    return {**{k: v for k, v in os.environ.items() if not k.startswith(('MEMGATE_', 'OPENAI_'))}, **extra}

def cli(*args):
    "The command line running `memgate ARGS` with this interpreter, through the console command's own entry point."
    return [sys.executable, '-c', 'import sys; from memgate.entry import main; sys.exit(main())', *map(str, args)]

def memgate(*args, timeout=120, **env):
    "Run `memgate ARGS` in a new process in the clean environment plus `env`; the CompletedProcess."
    return subprocess.run(cli(*args), capture_output=True, text=True, timeout=timeout, env=clean_env(**env))

README = ROOT / 'README.md'
# the docs' pages of topics, in the order the site lists them (38a_ after 38_): their examples run after the README's
PAGES = sorted(p for p in (ROOT / 'nbs').glob('3*.ipynb') if re.match(r'3\d[a-z]?_', p.name))

def page_text(path: Path) -> str:
    "The markdown a reader reads: the README, or a docs page's markdown cells."
    if path.suffix == '.md': return path.read_text(encoding='utf-8')
    cells = json.loads(path.read_text(encoding='utf-8'))['cells']
    return '\n\n'.join(''.join(c['source']) for c in cells if c['cell_type'] == 'markdown') + '\n'

def docs_text() -> str:
    "The README and every docs page, as one text (what the docs say, wherever it is said)."
    return '\n'.join(page_text(p) for p in [README, *PAGES])

# pregated runs over the bundled sessions, the scripted model answering (tests/make_fixture_runs.py)
SESSIONS = ROOT / 'fixtures' / 'transcripts'

def scorer_of(tmp_path, log):
    "The scorer `memgate pregate fit` makes of `log`."
    out = tmp_path / f'{log.stem}.scorer.json'
    r = memgate('pregate', 'fit', log, '--project', SESSIONS, '--out', out)
    assert r.returncode == 0, r.stderr
    return out

def scripted_ingest(server, runs, query, *args):
    "`memgate ingest` of `query` over the bundled sessions into `runs`, with the scripted model."
    return memgate('ingest', '--project', SESSIONS, '--query', query, '--base-url', server.url,
                   '--model', 'scripted-gate', '--log-dir', runs, '--quiet', *args)

def pregated_logs(tmp_path, query='infra-root-causes', *args):
    "(plain, pregated): `query` read without a pregate, then with one fitted on that log (`args` added)."
    import make_fixture_runs as fixture_runs
    from memgate.testing import FakeServer
    fixture_runs.LATENCY = False
    plain, log = (tmp_path / d / 'transcripts' / f'{query}.jsonl' for d in ('plain', 'pregated'))
    # the model counts the times it was asked each prompt: a fresh count for each run, none left for the next test
    fixture_runs.seen.clear()
    with FakeServer(gate=fixture_runs.selective_gate, models=('scripted-gate',)) as s:
        assert scripted_ingest(s, tmp_path / 'plain', query).returncode == 0
        scorer = scorer_of(tmp_path, plain)
        fixture_runs.seen.clear()          # the model answers the second run as it did the first
        r = scripted_ingest(s, tmp_path / 'pregated', query, '--pregate', scorer, *args)
    fixture_runs.seen.clear()
    assert r.returncode == 0, r.stderr
    return plain, log
