"""`memgate forget` (issue 54): a person takes a session back. The logs it leaves equal a run over the project
without that session, but for run ids, times and the hash links; and it costs the calls from the cut on."""
import json, shutil
from pathlib import Path
from helpers import memgate
from synth import incident_project
from memgate.log import read_log, verify
from memgate.testing import FakeServer, incident_gate

QUERIES = '[incidents]\nquestion = "Which incidents happened, with cause and fix?"\n'
TIMING = {'run', 'ts', 'elapsed_s', 'latency_s', 'times', 'prev', 'seal', 'usage', 'queue_s', 'first_token_s',
          'decode_s'}

def run(command, server, project, runs, *args):
    qf = Path(runs).parent / 'queries.toml'
    qf.write_text(QUERIES)
    return memgate(command, '--project', str(project), '--queries', str(qf), '--base-url', server.url,
                   '--model', 'test-model', '--log-dir', str(runs), '--chunk-tokens', '1200', *args, timeout=300)

def turns(path):
    "A log's turn events without run ids, times and the chain (which a second run makes differently)."
    return [{k: v for k, v in e.items() if k not in TIMING} for e in read_log(path).events
            if e['kind'] not in ('run_start', 'run_end')]

def level_aware(prompt: str) -> str:
    return incident_gate(prompt, 1024 if '[Memory of period ' in prompt else None)

def test_forget_leaves_the_logs_a_run_without_the_session_writes(tmp_path):
    proj = incident_project(tmp_path / 'home', months=1, incidents=12)
    gone = sorted(proj.glob('*.jsonl'))[3]
    runs, without = tmp_path / 'runs', tmp_path / 'without'
    with FakeServer(gate=lambda p: incident_gate(p)) as s:
        assert run('ingest', s, proj, runs).returncode == 0
        log = next(runs.rglob('incidents.jsonl'))
        before, calls = turns(log), len(s.requests)
        r = run('forget', s, proj, runs, '--session', str(gone))
        assert r.returncode == 0, r.stderr
        forgot_calls = len(s.requests) - calls
        # the same project without the session, from scratch, in another log folder
        shutil.move(gone, tmp_path / gone.name)
        assert run('ingest', s, proj, without).returncode == 0
    assert turns(log) == turns(next(without.rglob('incidents.jsonl')))
    assert turns(log) != before and verify(log).ok
    # the calls from the cut on: fewer than a whole run's
    assert 0 < forgot_calls < len(turns(log))
    assert 'cut before turn' in r.stderr and 'pre-forget-' in r.stderr
    assert len(list(log.parent.glob('incidents.jsonl.pre-forget-*'))) == 1
    assert json.loads((log.parent / 'forgotten.json').read_text()) == [str(gone)]
    # run again (what an interrupted forget's advice runs): nothing cut, nothing read, nothing changed
    with FakeServer(gate=lambda p: incident_gate(p)) as s:
        shutil.move(tmp_path / gone.name, gone)
        r = run('forget', s, proj, runs, '--session', str(gone))
        assert r.returncode == 0 and 'cut before' not in r.stderr and not s.requests, r.stderr
    assert turns(log) == turns(next(without.rglob('incidents.jsonl')))

def test_forget_over_periods_makes_level2_again_from_the_changed_period(tmp_path):
    proj = incident_project(tmp_path / 'home', months=3, incidents=12)
    gone = sorted(proj.glob('*.jsonl'))[3]
    runs, without = tmp_path / 'runs', tmp_path / 'without'
    args = ('--period', 'month', '--consolidate')
    with FakeServer(gate=level_aware) as s:
        assert run('ingest', s, proj, runs, *args).returncode == 0
        refused = run('forget', s, proj, runs, '--session', str(gone))
        assert refused.returncode != 0 and '--period' in refused.stderr and not list(runs.rglob('*.pre-forget-*'))
        r = run('forget', s, proj, runs, '--session', str(gone), *args)
        assert r.returncode == 0, r.stderr
        shutil.move(gone, tmp_path / gone.name)
        assert run('ingest', s, proj, without, *args).returncode == 0
    mine = sorted(p.relative_to(runs) for p in runs.rglob('*.jsonl'))
    theirs = sorted(p.relative_to(without) for p in without.rglob('*.jsonl'))
    assert mine == theirs and any(p.name == 'level2.jsonl' for p in mine)
    for p in mine:
        strip = lambda e: {k: v for k, v in e.items() if k not in ('source', 'read')}
        # (level 2's evidence names its period logs by path: each folder's own)
        assert [strip(e) for e in turns(runs / p)] == [strip(e) for e in turns(without / p)], p

def test_forget_on_a_bundled_session_equals_a_run_without_it(tmp_path):
    "The bundled sessions, the offline keyword model: forget a Codex rollout; compare with a run that never had it."
    from conftest import FIXTURES
    proj = tmp_path / 'transcripts'
    shutil.copytree(FIXTURES / 'transcripts', proj)
    gone = sorted((proj / 'codex').glob('rollout-*.jsonl'))[-1]
    runs, without = tmp_path / 'runs', tmp_path / 'without'
    base = ('--project', str(proj), '--model', 'keyword-baseline', '--query', 'infra-root-causes', '--quiet')
    assert memgate('ingest', *base, '--log-dir', str(runs)).returncode == 0
    r = memgate('forget', '--session', str(gone), *base, '--log-dir', str(runs))
    assert r.returncode == 0 and 'cut before turn' in r.stderr, r.stderr
    shutil.move(gone, tmp_path / gone.name)
    assert memgate('ingest', *base, '--log-dir', str(without)).returncode == 0
    mine, theirs = next(runs.rglob('infra-root-causes.jsonl')), next(without.rglob('infra-root-causes.jsonl'))
    assert turns(mine) == turns(theirs) and len(turns(mine)) > 20
