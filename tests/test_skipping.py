"Issue 51: a run with a pregate skips chunks, logs them as turns, and resumes and speculates to the same log."
import asyncio, re
from memgate.cascade import Cascade
from memgate.client import ScriptedClient
from memgate.domain import Chunk, Record, Role
from memgate.ingest import resume_point
from memgate.log import LogWriter, read_log, verify
from memgate.loop import Cheap, EventList, LoopConfig, run_loop
from memgate.parser import gate_response
from memgate.queries import Query

Q = Query('q', 'What failed?')
CHUNKS = [Chunk.from_records(i, [Record(Role.tool_result, f"step {i}: {'ERR' if i % 2 else 'ok'}")])
          for i in range(1, 401)]

class ByText:
    "A scorer that rates a chunk by whether it holds `ERR`."
    def score(self, chunk): return (0.8 if 'ERR' in chunk.text else 0.2) + chunk.index % 10 / 100

def says_yes(messages):
    "Yes to a chunk holding an error."
    return gate_response('ERR' in messages[-1]['content'].split('<section>')[-1], 'errors seen')

def cheap(): return Cheap(ByText(), Cascade(0.9, 0.1), seed='7', digest='d')

def run(sink, **kw):
    "A pregated run over CHUNKS into `sink`."
    client = ScriptedClient([says_yes] * 400)
    out = asyncio.run(run_loop(1, Q, CHUNKS, LoopConfig(), client, sink, cheap=cheap(), **kw))
    return out, client

def turns(events):
    "The turns of `events`, without run ids, times and hash links."
    drop = ('run', 'ts', 'elapsed_s', 'latency_s', 'prev', 'seal')
    kept = [e for e in events if e['kind'] not in ('run_start', 'run_end')]
    return [{k: v for k, v in e.items() if k not in drop} for e in kept]

def test_a_pregated_run_skips_chunks_as_turns_with_no_call_and_verifies(tmp_path):
    path = tmp_path / 'q.jsonl'
    with LogWriter(path) as w: (out, client) = run(w)
    v = verify(path)
    assert v.ok, v.message
    events = read_log(path).events
    skipped = [e for e in events if e['kind'] == 'skipped']
    assert len(skipped) == out.stats.skipped == 100 and len(client.calls) == 300
    assert all(e['score'] < e['threshold'] and e['read'] for e in skipped)
    assert [e['t'] for e in events if e['kind'] in ('gate', 'skipped')] == list(range(1, 401))
    assert all('score' in e and 'audited' in e for e in events if e['kind'] == 'gate')

def test_speculation_with_skipping_gives_the_sequential_log():
    one, three = EventList(), EventList()
    run(one)
    out, _ = run(three, speculate=3)
    assert turns(three) == turns(one) and out.stats.skipped == 100

def test_a_resumed_pregated_run_writes_the_events_of_a_clean_run(tmp_path):
    clean = EventList()
    run(clean)
    path = tmp_path / 'q.jsonl'
    with LogWriter(path) as w: run(w, limit=150)          # stopped after the cascade began skipping
    assert any(e['kind'] == 'skipped' for e in read_log(path).events)
    rp = resume_point(path, Q, LoopConfig())
    with LogWriter(path) as w: run(w, resume=rp)
    assert verify(path).ok
    assert turns(read_log(path).events) == turns(clean)

# `memgate ingest --pregate`, as a user runs it, over the bundled sessions
import sys as _sys
from pathlib import Path as _Path
_sys.path.insert(0, str(_Path(__file__).parent))
import make_fixture_runs as fixture_runs                       # noqa: E402
from conftest import FIXTURES                                  # noqa: E402
from helpers import memgate, scorer_of, scripted_ingest as ingest  # noqa: E402
from memgate.testing import FakeServer                         # noqa: E402

def test_the_bundled_sessions_are_too_few_to_certify_and_nothing_is_skipped(tmp_path):
    "3-11 relevant chunks a query: the run says how many more yes it needs, and every chunk goes to the model."
    fixture_runs.LATENCY = False
    fixture_runs.seen.clear()                  # prompts an earlier test asked: the model would answer them otherwise
    plain, log = (tmp_path / d / 'transcripts' / 'infra-root-causes.jsonl' for d in ('plain', 'pregated'))
    with FakeServer(gate=fixture_runs.selective_gate, models=('scripted-gate',)) as s:
        assert ingest(s, tmp_path / 'plain', 'infra-root-causes').returncode == 0
        scorer = scorer_of(tmp_path, plain)
        fixture_runs.seen.clear()
        n = len(s.requests)
        r = ingest(s, tmp_path / 'pregated', 'infra-root-causes', '--pregate', scorer)
        asked = sum('messages' in body for body in s.requests[n:])
    assert r.returncode == 0, r.stderr
    events = read_log(log).events
    # the same turns as the run without a pregate, but for each turn's score and audit
    timed = ('score', 'audited', 'queue_s', 'first_token_s', 'decode_s')
    unscored = lambda evs: [{k: v for k, v in e.items() if k not in timed} for e in turns(evs)]
    assert unscored(events) == unscored(read_log(plain).events)
    gates = [e for e in events if e['kind'] in ('gate', 'parse_failed')]
    assert not [e for e in events if e['kind'] == 'skipped'] and verify(log).ok
    assert all('score' in e and 'audited' in e for e in gates) and asked >= len(gates)
    said = re.search(r'read (\d+)  skipped 0: recall .*; 0 of (\d+) model calls saved \(0%\): '
                     r'(\d+) yes so far.*; (\d+) more needed to certify recall 0.9 at δ 0.1', r.stdout)
    assert said and said[1] == said[2] == str(len(gates)) and int(said[4]) > 0, r.stdout

def test_a_scorer_fitted_for_another_query_is_refused_before_any_call(tmp_path):
    fixture_runs.LATENCY = False
    with FakeServer(gate=fixture_runs.selective_gate, models=('scripted-gate',)) as s:
        assert ingest(s, tmp_path / 'plain', 'conventions').returncode == 0
        scorer = scorer_of(tmp_path, tmp_path / 'plain' / 'transcripts' / 'conventions.jsonl')
        n = len(s.requests)
        r = ingest(s, tmp_path / 'runs', 'infra-root-causes', '--pregate', scorer)
        asked = sum('messages' in body for body in s.requests[n:])
    assert (r.returncode, asked, 'Traceback' in r.stderr) == (2, 0, False), r.stderr
    assert 'was fitted for query conventions; this run has query infra-root-causes' in r.stderr, r.stderr

def test_consolidate_refuses_the_pregate_options(tmp_path):
    r = memgate('consolidate', '--project', FIXTURES / 'transcripts', '--pregate', 'x.json')
    assert r.returncode == 2 and "--pregate is ingest's" in r.stderr, r.stderr
