"Ingest contract a1-a7 (nbs/contracts.ipynb) and faults, against a scripted OpenAI-compatible server on 127.0.0.1."
import json, os, shlex, signal, subprocess, sys, time
from pathlib import Path
import pytest
from conftest import run, FIXTURES
from memgate.testing import FakeServer
from memgate.client import OpenAIClient, Retry
from memgate.chunking import chunk_project
from memgate.ingest import IngestPlan, ingest
from memgate.loop import TIMES
from memgate.log import read_log, stats, verify
from memgate.parser import gate_response
from memgate.prompt import NO_PREVIOUS_MEMORY, prompt_parts
from memgate.domain import sha256_text
from memgate.queries import load_queries
from memgate.projects import load_project
from helpers import clean_env, memgate

PROJECT = str(FIXTURES / 'transcripts')
CHUNKS = list(chunk_project(load_project(PROJECT)))
N = len(CHUNKS)      # the bundled project's chunks
Q = 'infra-root-causes'

env = clean_env

def ingest_cmd(server, log_dir, *args, **envs):
    return [sys.executable, '-m', 'memgate.cli', 'ingest', '--project', PROJECT, '--base-url', server.url,
            '--model', 'test-model', '--log-dir', str(log_dir), '--retry-wait', '0.05', *args]

def memgate_ingest(server, log_dir, *args, timeout=120, **envs):
    return subprocess.run(ingest_cmd(server, log_dir, *args), capture_output=True, text=True, timeout=timeout,
                          env=env(**envs))

def start_ingest(server, log_dir, progress_lines, *args):
    "Start `memgate ingest` in the background and return once it has printed `progress_lines` progress lines."
    p = subprocess.Popen(ingest_cmd(server, log_dir, *args), stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                         env=env())
    seen = 0
    while seen < progress_lines and (line := p.stderr.readline()):     # ended early: no spinning on
        seen += line.startswith('[')
    assert seen == progress_lines, 'the run ended before it printed that many progress lines'
    return p

def log_of(log_dir, q=Q): return Path(log_dir) / 'transcripts' / f'{q}.jsonl'
def events(path): return read_log(path).events
def turns(path): return [e['t'] for e in events(path) if e['kind'] in ('gate', 'parse_failed')]
def expected_updates(): return sum('error' in c.text.lower() for c in CHUNKS)

def test_a1_produces_complete_log(tmp_path):
    with FakeServer() as s: r = memgate_ingest(s, tmp_path, '--query', Q)
    assert r.returncode == 0, r.stderr
    log = log_of(tmp_path)
    ev = events(log)
    assert ev[0]['kind'] == 'run_start' and ev[-1]['kind'] == 'run_end' and ev[-1]['status'] == 'complete'
    assert turns(log) == list(range(1, N + 1)) and len(s.requests) == N
    assert sum(e['kind'] == 'memory' for e in ev) == expected_updates() > 0
    assert ev[0]['model'] == 'test-model' and ev[0]['config']['sampling'] == dict(temperature=0.0, max_tokens=2048)
    assert verify(log).ok
    progress = [l for l in r.stderr.splitlines() if l.startswith('[')]
    assert len(progress) == N and progress[0].startswith('[  1/') and ' t=1 update=' in progress[0]
    assert progress[-1].startswith(f'[ {N}/{N}] t={N} update=')        # estimated while reading, exact once read
    assert r.stdout.startswith(f'{Q}: run ') and f'  chunks {N}  ' in r.stdout

def test_a2_update_rate_matches_log(tmp_path):
    with FakeServer() as s: r = memgate_ingest(s, tmp_path, '--query', Q, '--format', 'json')
    (row,) = json.loads(r.stdout)
    s2 = stats(log_of(tmp_path))
    assert row['update_rate'] == round(s2.update_rate, 6) and row['update_rate'] == round(expected_updates() / N, 6)
    assert (row['chunks_seen'], row['chunks_used'], row['calls'], row['status']) == (N, s2.chunks_used, N, 'complete')
    assert set(row) >= {'run', 'project', 'query', 'log', 'status', 'chunks_seen', 'chunks_used', 'update_rate',
                        'memory_tokens', 'parse_failures', 'budget_exceeded', 'calls', 'elapsed_s'}
    v = memgate('stats', log_of(tmp_path), '--format', 'json')
    assert json.loads(v.stdout)[0]['update_rate'] == pytest.approx(row['update_rate'])

def test_a3_resume_is_noop_when_complete(tmp_path):
    with FakeServer() as s: memgate_ingest(s, tmp_path, '--query', Q)
    before = log_of(tmp_path).read_bytes()
    with FakeServer() as s2: r = memgate_ingest(s2, tmp_path, '--query', Q, '--resume')
    assert r.returncode == 0 and len(s2.requests) == 0 and log_of(tmp_path).read_bytes() == before
    assert f'already complete at t={N}' in r.stderr

def test_a4_resume_continues_partial(tmp_path):
    with FakeServer() as s: memgate_ingest(s, tmp_path, '--query', Q)
    log = log_of(tmp_path)
    lines = log.read_text().splitlines(keepends=True)
    cut = max(i for i, l in enumerate(lines) if json.loads(l).get('t') == 10) + 1
    log.write_text(''.join(lines[:cut]))             # as if killed after t=10
    mem10 = [json.loads(l) for l in lines[:cut] if json.loads(l)['kind'] == 'memory'][-1]['text']
    with FakeServer() as s2: r = memgate_ingest(s2, tmp_path, '--query', Q, '--resume')
    assert r.returncode == 0 and len(s2.requests) == N - 10 and 'resuming after t=10' in r.stderr
    first = s2.prompts()[0]
    assert f'<section> {CHUNKS[10].text} </section>' in first and f'<memory> {mem10} </memory>' in first
    assert turns(log) == list(range(1, N + 1)) and verify(log).ok

@pytest.mark.parametrize('sig,code', [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a5_interrupt_is_clean(tmp_path, sig, code):
    with FakeServer(latency=0.15) as s:
        p = start_ingest(s, tmp_path, 3, '--query', Q)
        p.send_signal(sig)
        out, err = p.communicate(timeout=60)
    assert p.returncode == code, err
    log = log_of(tmp_path)
    ev = events(log)
    assert ev[-1]['kind'] == 'run_end' and ev[-1]['status'] == 'interrupted' and verify(log, strict=True).ok
    assert 3 <= len(turns(log)) < N and 'finishing the turns in flight' in err
    last_gate = [e for e in ev if e['kind'] == 'gate'][-1]       # the last turn is whole: a yes has its memory
    assert (not last_gate['update']) or any(e['kind'] == 'memory' and e['t'] == last_gate['t'] for e in ev)
    # it ends with the command that goes on, and that command, followed, finishes the log
    said = err.splitlines()[-1]
    assert said.startswith('go on where it stopped with: memgate ingest --project ') and said.endswith(' --resume')
    argv = shlex.split(said.removeprefix('go on where it stopped with: '))
    assert argv[1:-1] == [str(a) for a in ingest_cmd(s, tmp_path, '--query', Q)[3:]]
    with FakeServer(port=s.port):
        again = subprocess.run([sys.executable, '-m', 'memgate.cli', *argv[1:]], capture_output=True, text=True,
                               timeout=120, env=env())
    assert again.returncode == 0 and turns(log) == list(range(1, N + 1)) and verify(log).ok, again.stderr

def test_a6_limit_respected(tmp_path):
    with FakeServer() as s: r = memgate_ingest(s, tmp_path, '--query', Q, '--limit', '5')
    assert r.returncode == 0 and turns(log_of(tmp_path)) == [1, 2, 3, 4, 5] and len(s.requests) == 5
    assert sum(e['kind'] == 'gate' for e in events(log_of(tmp_path))) == 5

@pytest.mark.live
@pytest.mark.skipif(os.environ.get('MEMGATE_LIVE') != '1'
                    or not (os.environ.get('MEMGATE_BASE_URL') and os.environ.get('MEMGATE_MODEL')),
                    reason='live: set MEMGATE_LIVE=1, MEMGATE_BASE_URL and MEMGATE_MODEL')
def test_a7_live_smoke(tmp_path):
    cmd = ['ingest', '--project', PROJECT, '--query', Q, '--limit', '20', '--log-dir', tmp_path, '--format', 'json']
    r = subprocess.run([sys.executable, '-m', 'memgate.cli', *map(str, cmd)], capture_output=True, text=True,
                       timeout=3600)
    (row,) = json.loads(r.stdout)
    print(f"live update-rate: {100 * row['update_rate']:.1f}% over {row['chunks_seen']} chunks "
          f"({row['parse_failures']} parse failures)")
    assert events(log_of(tmp_path))[-1]['kind'] == 'run_end' and verify(log_of(tmp_path)).ok

def test_several_queries_run_concurrently(tmp_path):
    qs = load_queries()
    def timed(queries, d):
        async def go():
            client = OpenAIClient(s.url, 'test-model', concurrency=4, retry=Retry(2, 0.05))
            try:
                return await ingest(IngestPlan(PROJECT, queries, d, limit=5, model='test-model'), lambda q: client,
                                    err=lambda m: None)
            finally: await client.aclose()
        t0 = time.monotonic()
        res = run(go())
        return time.monotonic() - t0, res
    with FakeServer(latency=0.3) as s:
        one, _ = timed([qs[Q]], tmp_path / 'one')
        four, res = timed(list(qs.values()), tmp_path / 'four')
    assert [r.status for r in res] == ['complete'] * 4 and len(s.requests) == 25
    # serial would be 4 x 5 x 0.3 s = 6 s; concurrent is about 5 x 0.3 s
    print(f'1 query {one:.2f}s, 4 queries {four:.2f}s, ratio {four / one:.2f}')
    assert four < 2 * one

@pytest.mark.parametrize('faults,calls', [(['500', '500'], N + 2), (['drop'], N + 1), (['429'], N + 1)])
def test_passing_faults_are_retried(tmp_path, faults, calls):
    with FakeServer(faults=faults) as s:
        t0 = time.monotonic()
        r = memgate_ingest(s, tmp_path, '--query', Q)
        dt = time.monotonic() - t0
    assert r.returncode == 0, r.stderr
    assert len(s.requests) == calls and turns(log_of(tmp_path)) == list(range(1, N + 1)) and verify(log_of(tmp_path)).ok
    assert 'retrying in' in r.stderr
    if faults == ['429']: assert dt >= 1.0 and 'retrying in 1.0s after HTTP 429: slow down' in r.stderr

def test_response_not_in_gate_format_is_retried_then_logged(tmp_path):
    with FakeServer(faults=['garbage'] * 4) as s: r = memgate_ingest(s, tmp_path, '--query', Q, '--limit', '3')
    ev = events(log_of(tmp_path))
    (pf,) = [e for e in ev if e['kind'] == 'parse_failed']
    assert (pf['t'], pf['attempts'], pf['raw']) == (1, 3, 'I would say yes, this chunk matters.')
    g2 = [e for e in ev if e['kind'] == 'gate' and e['t'] == 2][0]
    assert g2['attempts'] == 2 and len(s.requests) == 3 + 2 + 1 and r.returncode == 0

def test_server_going_away_fails_the_run_then_resume_finishes(tmp_path):
    s = FakeServer(stop_after=12).start()
    port = s.port
    r = memgate_ingest(s, tmp_path, '--query', Q, '--retries', '1')
    assert r.returncode == 1 and 'gave up after 2 tries' in r.stderr
    log = log_of(tmp_path)
    ev = events(log)
    assert ev[-1]['status'] == 'failed' and turns(log) == list(range(1, 13)) and verify(log).ok
    with FakeServer(port=port) as s2: r2 = memgate_ingest(s2, tmp_path, '--query', Q, '--resume')
    assert r2.returncode == 0 and len(s2.requests) == N - 12
    assert turns(log) == list(range(1, N + 1)) and verify(log).ok

def test_kill_9_then_resume_has_every_chunk_once(tmp_path):
    with FakeServer(latency=0.05) as s:
        p = start_ingest(s, tmp_path, 8, '--query', Q)
        p.kill()
        p.wait()
        log = log_of(tmp_path)
        assert verify(log).ok and events(log)[-1]['kind'] != 'run_end'
        r = memgate_ingest(s, tmp_path, '--query', Q, '--resume')
    assert r.returncode == 0, r.stderr
    assert turns(log) == list(range(1, N + 1)) and verify(log, strict=True).ok
    v = memgate('verify', log)
    assert v.returncode == 0 and ': ok: ' in v.stdout

def test_killed_mid_line_log_is_resumed_after_dropping_it(tmp_path):
    with FakeServer() as s: memgate_ingest(s, tmp_path, '--query', Q, '--limit', '4')
    log = log_of(tmp_path)
    log.write_bytes(log.read_bytes() + b'{"kind":"gate","run":"01J')
    v = memgate('verify', log)
    assert v.returncode == 0 and 'set aside' in v.stdout
    with FakeServer() as s: r = memgate_ingest(s, tmp_path, '--query', Q, '--resume', '--limit', '6')
    assert 'dropped an incomplete last line (25 bytes)' in r.stderr
    assert turns(log) == [1, 2, 3, 4, 5, 6] and verify(log, strict=True).ok

def test_wrong_model_is_final_and_says_what_the_server_said(tmp_path):
    with FakeServer(models=('other',)) as s: r = memgate_ingest(s, tmp_path, '--query', Q)
    assert r.returncode == 1 and len(s.requests) == 1
    assert "answered HTTP 404: The model `test-model` does not exist." in r.stderr and 'Traceback' not in r.stderr
    assert events(log_of(tmp_path))[-1]['status'] == 'failed' and verify(log_of(tmp_path)).ok

def test_a_server_that_echoes_most_of_the_key_shows_none_of_it(tmp_path):
    "A 401 body repeating the key but its last two characters was printed and logged: masking matched the whole key."
    secret = 'sk-proj-ECHOED-0123456789abcdef'
    with FakeServer(faults=['echo-key']) as s:
        r = memgate_ingest(s, tmp_path, '--query', Q, '--limit', '1', '--retries', '0', MEMGATE_API_KEY=secret)
    assert r.returncode == 1 and 'Incorrect API key provided: ***' in r.stderr
    said = r.stdout + r.stderr + log_of(tmp_path).read_text()
    assert not any(secret[i:i + 8] in said for i in range(len(secret) - 7)), said

def test_api_key_never_leaks(tmp_path):
    secret = 'sk-test-SECRET-0123456789'
    rec = tmp_path / 'rec.jsonl'
    with FakeServer(api_key='sk-right') as s:
        r = memgate_ingest(s, tmp_path, '--query', Q, MEMGATE_API_KEY=secret, MEMGATE_RECORD=str(rec))
    assert s.headers[0]['Authorization'] == f'Bearer {secret}'          # it was sent, in the header
    assert r.returncode == 1 and 'Incorrect API key provided: ***' in r.stderr
    for text in (r.stdout, r.stderr, log_of(tmp_path).read_text(), rec.read_text() if rec.exists() else ''):
        assert secret not in text
    with FakeServer(api_key=secret) as s:
        r = memgate_ingest(s, tmp_path / 'ok', '--query', Q, '--limit', '2', MEMGATE_API_KEY=secret,
                           MEMGATE_RECORD=str(rec))
    assert r.returncode == 0 and secret not in rec.read_text() and secret not in log_of(tmp_path / 'ok').read_text()

def test_no_endpoint_is_one_line_saying_how_to_configure(tmp_path):
    r = memgate('ingest', '--project', PROJECT, '--log-dir', tmp_path)
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1
    assert ('no model endpoint configured: pass --base-url URL and --model NAME '
            '(or set MEMGATE_BASE_URL and MEMGATE_MODEL)') in r.stderr

def test_environment_configures_the_endpoint(tmp_path):
    with FakeServer() as s:
        r = memgate('ingest', '--project', PROJECT, '--query', Q, '--limit', '2', '--log-dir', tmp_path,
                    OPENAI_BASE_URL=s.url, MEMGATE_MODEL='test-model')
    assert r.returncode == 0 and len(s.requests) == 2

def test_existing_log_is_never_overwritten_and_the_refusal_is_one_line(tmp_path):
    with FakeServer() as s:
        memgate_ingest(s, tmp_path, '--query', Q, '--limit', '2')
        before, calls = log_of(tmp_path).read_bytes(), len(s.requests)
        r = memgate_ingest(s, tmp_path, '--query', Q, '--limit', '3')
        assert len(s.requests) == calls                      # refused before any model call
    assert r.returncode == 2 and r.stdout == ''              # no stale numbers printed as a "failed" run
    assert r.stderr.splitlines()[-1] == (f'memgate ingest: error: {log_of(tmp_path)} exists (2 turns, complete): '
                                         'pass --resume to continue it, or --log-dir DIR for a new log')
    assert log_of(tmp_path).read_bytes() == before

def test_a_log_whose_run_logged_no_turn_does_not_block_a_plain_run(tmp_path):
    with FakeServer(faults=['drop'] * 20) as s:                # the server never answers: the run fails at t=1
        r = memgate_ingest(s, tmp_path, '--query', Q, '--limit', '3', '--retries', '2')
    assert r.returncode == 1 and events(log_of(tmp_path))[-1]['status'] == 'failed' and turns(log_of(tmp_path)) == []
    with FakeServer() as s: r = memgate_ingest(s, tmp_path, '--query', Q, '--limit', '3')
    assert r.returncode == 0, r.stderr
    assert f'{log_of(tmp_path)}: its earlier run logged no turn; continuing it' in r.stderr
    ev = events(log_of(tmp_path))
    assert [e['status'] for e in ev if e['kind'] == 'run_end'] == ['failed', 'complete']
    assert turns(log_of(tmp_path)) == [1, 2, 3]
    assert verify(log_of(tmp_path)).ok

def test_resume_refuses_a_changed_question(tmp_path):
    with FakeServer() as s:
        memgate_ingest(s, tmp_path, '--query', Q, '--limit', '2')
        qf = tmp_path / 'q.toml'
        qf.write_text(f'[{Q}]\nquestion = "Something else?"\n')
        r = memgate_ingest(s, tmp_path, '--query', Q, '--resume', '--queries', str(qf))
        r2 = memgate_ingest(s, tmp_path, '--query', Q, '--resume', '--chunk-tokens', '3000')
    assert r.returncode == 1 and 'the question of query' in r.stderr and 'changed' in r.stderr
    assert r2.returncode == 1 and 'chunk_tokens was 5000 when this log was written, now 3000' in r2.stderr

def test_record_then_replay_offline_gives_the_same_log(tmp_path):
    rec = tmp_path / 'rec.jsonl'
    with FakeServer(faults=['garbage']) as s:
        memgate_ingest(s, tmp_path / 'live', '--query', Q, '--limit', '8', MEMGATE_RECORD=str(rec))
    assert len(rec.read_text().splitlines()) == 9 and 'Authorization' not in rec.read_text()
    r = memgate('ingest', '--project', PROJECT, '--query', Q, '--limit', '8', '--replay', rec,
                '--log-dir', tmp_path / 'replay')
    assert r.returncode == 0, r.stderr
    volatile = ('run', 'ts', 'elapsed_s', 'latency_s', 'prev', 'seal', *TIMES)   # the chain and seals cover run ids
    volatile += ('server',)                # what the live run learned of its server; a replay asks no server
    strip = lambda p: [{k: v for k, v in e.items() if k not in volatile} for e in events(p)]
    assert strip(log_of(tmp_path / 'replay')) == strip(log_of(tmp_path / 'live'))

def test_main_job_keyword_baseline_offline(tmp_path):
    r = memgate('ingest', '--project', PROJECT, '--model', 'keyword-baseline', '--log-dir', tmp_path,
                '--format', 'json')
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)
    assert [row['query'] for row in rows] == list(load_queries())
    for row in rows:
        log = Path(row['log'])
        ev = events(log)
        assert verify(log).ok and ev[0]['model'] == 'keyword-baseline'
        assert ev[0]['baseline'] is True and row['baseline'] is True
        assert row['chunks_seen'] == N and row['update_rate'] == round(stats(log).update_rate, 6)
    prefixes = tuple(row['query'] for row in rows)
    assert sum(l.startswith(prefixes) and '] t=' in l for l in r.stderr.splitlines()) == 4 * N
    assert sum(l.startswith(prefixes) and f'[ {N}/{N}] t={N} ' in l for l in r.stderr.splitlines()) == 4

def test_resume_refuses_when_the_projects_chunks_changed(tmp_path):
    import shutil
    proj = tmp_path / 'proj'
    shutil.copytree(FIXTURES / 'transcripts', proj)
    cmd = lambda s, *a: memgate('ingest', '--project', proj, '--base-url', s.url, '--model', 'test-model', '--query', Q,
                                '--log-dir', tmp_path / 'runs', *a)
    with FakeServer() as s:
        assert cmd(s, '--limit', '5').returncode == 0
        first = next((proj / 'claude-code').glob('fe5e*.jsonl'))
        lines = first.read_text().splitlines(keepends=True)
        i = next(i for i, l in enumerate(lines) if json.loads(l).get('type') == 'assistant')
        row = json.loads(lines[i])
        row['message']['content'][0]['text'] = 'rewritten history'
        lines[i] = json.dumps(row) + '\n'
        first.write_text(''.join(lines))
        r = cmd(s, '--resume', '--limit', 'all')               # read on past the 5 chunks of its limit
    assert r.returncode == 1 and (f"{Q}: failed: {first} changed other than by appending: turn t=1 read it "
                                  "differently; ingest into a new --log-dir to read it anew") in r.stderr
    assert len(s.requests) == 5 and turns(tmp_path / 'runs' / 'proj' / f'{Q}.jsonl') == [1, 2, 3, 4, 5]

def test_second_sigint_cancels_at_once_and_the_log_stays_whole(tmp_path):
    with FakeServer(latency=3.0) as s:
        p = subprocess.Popen(ingest_cmd(s, tmp_path), stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                             env=env())
        while len(s.requests) < 4: time.sleep(0.05)        # four queries, each with a request in flight
        t0 = time.monotonic()
        p.send_signal(signal.SIGINT)
        time.sleep(0.3)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
        dt = time.monotonic() - t0
    assert p.returncode == 130 and dt < 2.5, (dt, err)      # did not wait for the 3 s answers
    assert 'cancelling now' in err
    assert err.splitlines()[-1].endswith("run_end 'interrupted'; go on where it stopped with: memgate "
                                         + shlex.join(map(str, ingest_cmd(s, tmp_path)[3:])) + ' --resume')
    for q in load_queries():
        log = log_of(tmp_path, q)
        ev = events(log)
        assert ev[-1]['kind'] == 'run_end' and ev[-1]['status'] == 'interrupted' and verify(log, strict=True).ok
        assert turns(log) == []

def always_yes(prompt: str) -> str:
    "A gate that says yes to every chunk and appends ~150 tokens each time: memory fills within a few turns."
    memory, section = prompt_parts(prompt)
    prev = '' if memory == NO_PREVIOUS_MEMORY else memory + '\n'
    return gate_response(True, prev + f'- chunk {sha256_text(section)[:10]}: ' + 'detail ' * 150, think='everything')

def test_a_gate_that_says_yes_to_everything_is_reported_and_warned_about(tmp_path):
    with FakeServer(gate=always_yes) as s: r = memgate_ingest(s, tmp_path, '--query', Q, '--format', 'json')
    assert r.returncode == 0, r.stderr
    (row,) = json.loads(r.stdout)
    s = stats(log_of(tmp_path))
    assert (row['said_yes'], row['said_yes_rate'], row['chunks_used']) == (N, 1.0, s.chunks_used)
    assert s.chunks_used < 10
    assert row['budget_exceeded'] == N - s.chunks_used and row['first_over_budget'] == s.chunks_used + 1
    assert row['prompt_tokens'] == N and row['completion_tokens'] == N          # the fake server counts 1 + 1 a call
    assert (f"warning: {Q}: the gate said yes on 100.0% of chunks (update-rate {100 * s.update_rate:.1f}%), above 30%: "
            "it is not discriminating (an expensive summarizer)") in r.stderr
    assert (f"warning: {Q}: memory saturated at t={s.chunks_used + 1}: {N - s.chunks_used} later updates were refused"
            in r.stderr)

def test_a_project_that_grew_is_read_on_from_where_the_log_stopped(tmp_path):
    "Records appended to the latest session and a new session: resuming reads exactly them, once."
    import shutil
    from synth import cc, write_jsonl
    proj = tmp_path / 'proj'
    shutil.copytree(FIXTURES / 'transcripts', proj)
    cmd = lambda s, *a: memgate('ingest', '--project', proj, '--base-url', s.url, '--model', 'test-model', '--query', Q,
                                '--log-dir', tmp_path / 'runs', *a)
    with FakeServer() as s: assert cmd(s).returncode == 0
    log = tmp_path / 'runs' / 'proj' / f'{Q}.jsonl'
    before = len(turns(log))
    latest = load_project(proj).sessions[-1].path                        # the session worked in last
    sid = json.loads(latest.read_text().splitlines()[-1]).get('sessionId')
    with open(latest, 'a') as f:
        for i in range(3): f.write(json.dumps(cc('user', f'2027-01-01T10:00:0{i}Z', f'appended {i}: error in CI',
                                                 sid=sid)) + '\n')
    write_jsonl(proj / 'claude-code' / 'new-session.jsonl',
                [cc('user', '2027-02-01T10:00:00Z', 'a new session: the deploy error is back', sid='NEW')])
    with FakeServer() as s:
        r = cmd(s, '--resume')
        prompts = s.prompts()
    assert r.returncode == 0, r.stderr
    new = [p.split('<section> ', 1)[1] for p in prompts]
    assert len(new) == 2 and 'appended 0' in new[0] and 'appended 2' in new[0] and 'a new session' in new[1]
    assert f"resuming after t={before}\n" in r.stderr
    assert turns(log) == list(range(1, before + 3)) and verify(log).ok
    with FakeServer() as s:
        r = cmd(s, '--resume')
        assert r.returncode == 0 and len(s.requests) == 0 and f'already complete at t={before + 2}' in r.stderr
