"""Every example of the README and of the docs' pages runs as written, in order, on a copy of the checkout's data:
exit 0 and the files it says. A user's own sessions are a project `shop` under a Claude Code home made here, and
the hosted and local servers the examples name are the tests' scripted server."""
import json, os, re, shutil, subprocess, sys
from pathlib import Path
import pytest
from conftest import ROOT
from memgate.testing import FakeServer
from helpers import PAGES, README, clean_env, page_text
from memgate.log import line_sha
from synth import cc, write_jsonl

# the set-up commands: what runs this very test, and a model server's install
SET_UP = ('pip install', 'make test', 'CMAKE_ARGS=')
# model servers: the scripted one takes their place
SERVER_STARTS = ('vllm serve', 'python -m llama_cpp.server', 'llama-server', 'ollama ')
MODELS = ('Qwen/Qwen2.5-7B-Instruct', 'smollm2', 'qwen/qwen-2.5-72b-instruct')

def blocks(lang: str, pages=None) -> list[str]:
    "The fenced blocks in `lang` of the README and the docs' pages (or of `pages`), in order."
    return [b for p in (pages or [README, *PAGES])
            for b in re.findall(rf'^```{lang}\n(.*?)^```', page_text(p), re.M | re.S)]

def commands(block: str) -> list[str]:
    "The shell commands of a block: continuation lines joined, comments dropped."
    text = block.replace('\\\n', ' ')
    return [re.sub(r'\s+#.*$', '', line).strip() for line in text.splitlines() if line.strip()]

@pytest.fixture(scope='module')
def checkout(tmp_path_factory):
    "What a fresh clone holds that the examples read (the bundled sessions, runs and labels), and a user's home."
    d = tmp_path_factory.mktemp('clone')
    for part in ('fixtures/transcripts', 'fixtures/runs', 'labels'): shutil.copytree(ROOT / part, d / part)
    shop = d / 'home' / '.claude' / 'projects' / '-home-you-shop'
    write_jsonl(shop / 'S1.jsonl', [
        cc('user', '2026-01-05T09:00:00Z', 'the deploy failed: connection refused on port 5432', cwd='/home/you/shop'),
        cc('assistant', '2026-01-05T09:00:05Z', 'Postgres was not running after the reboot; the root cause is the '
           'service not enabled. Fixed with systemctl enable postgresql. export DB_PASSWORD=Zr8Kp2Lm5Nx7Qw1Ty4',
           cwd='/home/you/shop'),
    ])
    return d

def kept_head(cmd: str, ran: list) -> str:
    "`cmd` with `--head HEAD` the head the first ingest printed for that log, as a user copies it from the summary."
    if '--head HEAD' not in cmd: return cmd
    log = cmd.split()[2]
    printed = next(r.stdout for c, r in ran if c.startswith('memgate ingest'))
    (head,) = re.findall(rf'^  log {re.escape(log)} \(\d+ lines, head ([0-9a-f]{{16}})\)', printed, re.M)
    return cmd.replace('--head HEAD', f'--head {head}')

def exported(cmd: str, server: FakeServer) -> dict:
    "The variables an `export A=B ...` line sets, a base URL the scripted server's (a hosted one's stand-in)."
    env = dict(kv.split('=', 1) for kv in cmd.split()[1:])
    return {k: server.url if k.endswith('_BASE_URL') else v for k, v in env.items()}

def run(cmd: str, cwd: Path, server: FakeServer, env: dict | None = None) -> subprocess.CompletedProcess:
    "`cmd` as a user types it, with `memgate` this interpreter's and a server URL the scripted server's."
    cmd = re.sub(r'http://127\.0\.0\.1:\d+/v1', server.url, cmd)
    assert cmd.startswith('memgate '), cmd
    argv = [sys.executable, '-m', 'memgate.cli', *cmd.split()[1:]]
    home = dict(CLAUDE_CONFIG_DIR=str(cwd / 'home' / '.claude'), CODEX_HOME=str(cwd / 'home' / '.codex'))
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=300,
                          env=clean_env(**home, **(env or {})))

def same(text: str) -> str:
    "`text` with what differs from run to run (run ids, heads, seconds) made alike."
    # a total is marked `~` while the reading goes on, which depends on the machine's pace
    for pattern, alike in ((r'run [0-9A-Z]{26}', 'run R'), (r'head [0-9a-f]{16}', 'head H'),
                           (r'\b\d+\.\ds\b', 'Ns'), (r'/~(\d+)\]', r'/\1]')):
        text = re.sub(pattern, alike, text)
    return text

def run_all(checkout, server) -> list:
    "Every shell command of the README and the pages, in order: (command, CompletedProcess) each."
    ran = []
    for page in [README, *PAGES]:
        env = {}                                    # what a page exports holds for the rest of that page
        for block in blocks('sh', [page]):
            for cmd in commands(block):
                if cmd.startswith(SET_UP) or cmd.startswith(SERVER_STARTS): continue
                if cmd.startswith('export '):
                    env.update(exported(cmd, server))
                    continue
                r = run(kept_head(cmd, ran), checkout, server, env)
                assert r.returncode == 0, (page.name, cmd, r.stderr[-2000:])
                ran.append((cmd, r))
    return ran

def test_every_shell_example_of_the_readme_runs_in_order_and_writes_what_it_says(checkout):
    with FakeServer(models=MODELS) as server: ran = run_all(checkout, server)
    # the hosted recipe: the project listed by name, its secret redacted, a run against the provider, no key kept
    out = {cmd: r.stdout + r.stderr for cmd, r in ran}
    assert out['memgate projects'].startswith('shop ')
    assert 'Zr8Kp2Lm5Nx7Qw1Ty4' not in out['memgate secrets --project shop']
    hosted = checkout / 'runs' / 'shop' / 'infra-root-causes.jsonl'
    start = json.loads(hosted.read_text().splitlines()[0])
    assert start['model'] == 'qwen/qwen-2.5-72b-instruct' and 'sk-or-v1' not in hosted.read_text()
    assert (checkout / 'runs-local' / 'shop' / 'infra-root-causes.jsonl').is_file()
    # the output the commands page shows is the output the demo prints (run ids, heads and times aside)
    demo = next(r for cmd, r in ran if cmd == 'memgate ingest --project fixtures/transcripts --model keyword-baseline')
    (shown,) = [b for b in re.findall(r'^```\n(.*?)^```', page_text(PAGES[0]), re.M | re.S) if 'about 31 chunks' in b]
    printed = same(demo.stderr + demo.stdout).splitlines()
    assert [line for line in shown.splitlines() if line != '...' and same(line) not in printed] == []
    # the cheap gate's page shows what its commands print (run ids and times aside), and the refusal it quotes
    page = next(p for p in PAGES if p.name == '38a_skip_calls.ipynb')
    refused = run('memgate ingest --project fixtures/transcripts --query build-and-test-failures --model '
                  'keyword-baseline --pregate build.pregate.json --log-dir runs-refused --quiet', checkout, server)
    cheap = [r for cmd, r in ran if 'pregate' in cmd or 'runs-cheap' in cmd] + [refused]
    printed = [line.strip() for line in same(''.join(r.stdout + r.stderr for r in cheap)).splitlines()]
    quoted, fence = [], None
    for line in page_text(page).splitlines():
        if line.strip().startswith('```'): fence = line.strip() if fence is None else None   # ```sh: commands
        elif fence == '```': quoted.append(line.strip())
    assert refused.returncode == 2 and len(quoted) == 6 and [q for q in quoted if same(q) not in printed] == []
    assert 'read 133  skipped 3: recall 1.000' in ''.join(r.stdout for r in cheap)
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
