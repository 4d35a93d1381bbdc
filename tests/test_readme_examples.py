"Every example of the README runs as written, in order, on a copy of the checkout's data: exit 0 and the files it says."
import json, os, re, shutil, subprocess, sys
from pathlib import Path
import pytest
from conftest import ROOT
from memgate.testing import FakeServer
from helpers import clean_env
from memgate.log import line_sha

README = ROOT / 'README.md'
SET_UP = ('pip install', 'make test')           # the set-up block: what runs this very test
SERVER_STARTS = ('vllm serve', 'python -m llama_cpp.server')   # model servers: the scripted one takes their place

def blocks(lang: str) -> list[str]:
    "The README's fenced blocks in `lang`, in order."
    return re.findall(rf'^```{lang}\n(.*?)^```', README.read_text(encoding='utf-8'), re.M | re.S)

def commands(block: str) -> list[str]:
    "The shell commands of a block: continuation lines joined, comments dropped."
    text = block.replace('\\\n', ' ')
    return [re.sub(r'\s+#.*$', '', line).strip() for line in text.splitlines() if line.strip()]

@pytest.fixture(scope='module')
def checkout(tmp_path_factory):
    "What a fresh clone holds that the examples read: the bundled sessions, runs and labels."
    d = tmp_path_factory.mktemp('clone')
    for part in ('fixtures/transcripts', 'fixtures/runs', 'labels'): shutil.copytree(ROOT / part, d / part)
    return d

def kept_head(cmd: str, ran: list) -> str:
    "`cmd` with `--head HEAD` the head the first ingest printed for that log, as a user copies it from the summary."
    if '--head HEAD' not in cmd: return cmd
    log = cmd.split()[2]
    printed = next(r.stdout for c, r in ran if c.startswith('memgate ingest'))
    (head,) = re.findall(rf'^  log {re.escape(log)} \(\d+ lines, head ([0-9a-f]{{16}})\)', printed, re.M)
    return cmd.replace('--head HEAD', f'--head {head}')

def run(cmd: str, cwd: Path, server: FakeServer) -> subprocess.CompletedProcess:
    "`cmd` as a user types it, with `memgate` this interpreter's and a server URL the scripted server's."
    cmd = cmd.replace('http://127.0.0.1:8000/v1', server.url)
    assert cmd.startswith('memgate '), cmd
    argv = [sys.executable, '-m', 'memgate.cli', *cmd.split()[1:]]
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=300, env=clean_env())

def test_every_shell_example_of_the_readme_runs_in_order_and_writes_what_it_says(checkout):
    ran = []
    with FakeServer(models=('Qwen/Qwen2.5-7B-Instruct', 'smollm2')) as server:
        for block in blocks('sh'):
            for cmd in commands(block):
                if cmd.startswith(SET_UP) or cmd.startswith(SERVER_STARTS): continue
                r = run(kept_head(cmd, ran), checkout, server)
                assert r.returncode == 0, (cmd, r.stderr[-2000:])
                ran.append((cmd, r))
    said = {cmd.split()[1] for cmd, _ in ran}
    assert said >= {'ingest', 'show', 'answer', 'verify', 'stats', 'report', 'eval', 'export'}, said
    logs = lambda d: sorted(p.name for p in (checkout / d / 'transcripts').glob('*.jsonl'))
    queries = [f'{q}.jsonl' for q in ('build-and-test-failures', 'conventions', 'design-decisions',
                                      'infra-root-causes')]
    assert logs('runs') == logs('runs-ungated') == queries and logs('runs-qwen') == ['infra-root-causes.jsonl']
    stats = next(r for cmd, r in ran if cmd.startswith('memgate stats'))
    assert [row['log'] for row in json.loads(stats.stdout)] == [f'runs/transcripts/{q}' for q in queries]
    train = (checkout / 'train.jsonl').read_text().splitlines()
    assert len(train) == 62 and all(json.loads(line)['messages'] for line in train)    # 31 turns x 2 labelled queries
    assert (checkout / 'report' / 'index.html').read_text().startswith('<!doctype html>')
    assert sum('"kind":"answer"' in line for line in (checkout / 'runs/transcripts/conventions.jsonl').open()) == 1
    # the head ingest printed still proves the log after `answer` appended to it, and says what came since
    held = next(r for cmd, r in ran if '--head' in cmd)
    assert held.stdout.rstrip().endswith('then 1 line appended: 1 answer'), held.stdout
    answered = next(r for cmd, r in ran if cmd.startswith('memgate answer'))
    log = checkout / 'runs/transcripts/infra-root-causes.jsonl'
    assert f"  log runs/transcripts/infra-root-causes.jsonl ({len(log.read_bytes().splitlines())} lines, head " \
           f"{line_sha(log.read_bytes().splitlines(keepends=True)[-1])[:16]})" in answered.stdout

def test_every_python_example_of_the_readme_runs(checkout):
    if not (checkout / 'runs').is_dir():           # the shell examples make runs/; on their own, make it here
        subprocess.run([sys.executable, '-m', 'memgate.cli', 'ingest', '--project', 'fixtures/transcripts', '--model',
                        'keyword-baseline', '--quiet'], cwd=checkout, check=True, capture_output=True, env=clean_env())
    for code in blocks('python'):
        r = subprocess.run([sys.executable, '-c', code], cwd=checkout, capture_output=True, text=True, timeout=300,
                           env=clean_env(MPLBACKEND='Agg'))
        assert r.returncode == 0, (code, r.stderr[-2000:])

def test_the_sql_example_runs_where_duckdb_is_installed(checkout):
    duckdb = pytest.importorskip('duckdb', reason='duckdb is optional (the README says pip install duckdb)')
    (sql,) = blocks('sql')
    os.chdir(checkout)
    assert len(duckdb.sql(sql).fetchall()) >= 4
