"The event log: durable whole-turn writes, checked reading, stats from events alone, verify naming the failing line."
import json
import pytest
from conftest import run
from helpers import QUERY, make_chunks, yes, no
from memgate.client import ScriptedClient
from memgate.log import LogError, LogWriter, read_log, stats, verify, drop_incomplete_tail
from memgate.loop import LoopConfig, run_loop

SCRIPT = [yes('a'), no(), yes('a; b'), 'junk', 'junk', 'junk', yes('x ' * 3000), yes('a; b; c')]

@pytest.fixture
def clean_log(tmp_path):
    path = tmp_path / 'proj' / 'infra.jsonl'
    with LogWriter(path) as w: run(run_loop(1, QUERY, make_chunks(6), LoopConfig(), ScriptedClient(SCRIPT), w))
    return path

def lines(path): return path.read_text(encoding='utf-8').splitlines(keepends=True)
def find(path, kind, t=None):
    events = [json.loads(l) for l in lines(path)]
    return next(i for i, e in enumerate(events) if e['kind'] == kind and (t is None or e.get('t') == t))
def rewrite(path, i, **changes):
    ls = lines(path)
    e = json.loads(ls[i])
    e.update(changes)
    ls[i] = json.dumps(e, ensure_ascii=False) + '\n'
    path.write_text(''.join(ls), encoding='utf-8')

def test_clean_log_verifies(clean_log):
    v = verify(clean_log)
    assert v.ok and v.line is None and v.events == len(lines(clean_log)), str(v)
    kinds = [json.loads(l)['kind'] for l in lines(clean_log)]
    assert kinds == ['run_start', 'gate', 'evidence', 'memory', 'gate', 'gate', 'evidence', 'memory', 'parse_failed',
                     'gate', 'budget_exceeded', 'gate', 'evidence', 'memory', 'run_end']

def test_stats_recomputed_from_events(clean_log):
    s = stats(clean_log)
    assert (s.chunks_seen, s.chunks_used, s.update_gates, s.parse_failures, s.budget_exceeded, s.calls,
            s.status) == (6, 3, 4, 1, 1, 8, 'complete')
    assert s.update_rate == 0.5 and s.final_memory_sha == json.loads(lines(clean_log)[13])['sha']

def test_every_line_is_one_compact_event(clean_log):
    for l in lines(clean_log): assert l.endswith('\n') and l.count('\n') == 1 and json.loads(l)['run']

def test_tampered_text_fails_naming_the_line(clean_log):
    i = find(clean_log, 'memory', 3)
    rewrite(clean_log, i, text='a; b (edited)')
    v = verify(clean_log)
    assert (v.ok, v.line) == (False, i + 1) and 'sha does not match' in v.message
    j = find(clean_log, 'evidence', 1)
    rewrite(clean_log, j, text='[User] something else')
    v = verify(clean_log)
    assert (v.ok, v.line) == (False, j + 1)

def test_missing_parent_fails_naming_the_line(clean_log):
    i = find(clean_log, 'memory', 3)
    rewrite(clean_log, i, parents=[json.loads(lines(clean_log)[i])['parents'][0], 'ab' * 32])
    v = verify(clean_log)
    assert (v.ok, v.line) == (False, i + 1) and 'does not appear earlier' in v.message

def test_duplicated_turn_fails_naming_the_line(clean_log):
    ls = lines(clean_log)
    gate2 = find(clean_log, 'gate', 2)
    clean_log.write_text(''.join(ls[:gate2 + 1] + [ls[gate2]] + ls[gate2 + 1:]))
    v = verify(clean_log)
    assert (v.ok, v.line) == (False, gate2 + 2) and 'strictly increase' in v.message

def test_memory_without_gate_fails(clean_log):
    ls = lines(clean_log)
    i = find(clean_log, 'gate', 1)
    clean_log.write_text(''.join(ls[:i] + ls[i + 1:]))
    v = verify(clean_log)
    assert not v.ok and v.line == i + 1 and 'no gate in the same turn' in v.message

def test_run_end_counts_must_agree(clean_log):
    i = len(lines(clean_log)) - 1
    rewrite(clean_log, i, chunks_used=4)
    v = verify(clean_log)
    assert (v.ok, v.line) == (False, i + 1) and 'chunks_used' in v.message

def test_truncated_line_in_the_middle_fails_naming_it(clean_log):
    ls = lines(clean_log)
    ls[4] = ls[4][:30] + '\n'
    clean_log.write_text(''.join(ls))
    v = verify(clean_log)
    assert (v.ok, v.line) == (False, 5) and 'not JSON' in v.message
    with pytest.raises(LogError, match=r'infra.jsonl:5: not JSON'): read_log(clean_log)

def test_incomplete_last_line_is_reported_and_set_aside(clean_log):
    data = clean_log.read_bytes()
    n = len(lines(clean_log))
    clean_log.write_bytes(data + b'{"kind":"gate","run":"01J')
    log = read_log(clean_log)
    assert len(log.events) == n and log.incomplete_line == n + 1 and log.incomplete == b'{"kind":"gate","run":"01J'
    v = verify(clean_log)
    assert v.ok and v.incomplete_line == n + 1 and 'set aside' in str(v)
    v = verify(clean_log, strict=True)
    assert (v.ok, v.line) == (False, n + 1)
    assert drop_incomplete_tail(clean_log) == b'{"kind":"gate","run":"01J' and clean_log.read_bytes() == data

def test_writer_drops_an_incomplete_tail_before_appending(clean_log):
    data = clean_log.read_bytes()
    clean_log.write_bytes(data + b'{"kind":"ga')
    w = LogWriter(clean_log)
    w.close()
    assert w.dropped_tail == b'{"kind":"ga' and clean_log.read_bytes() == data

def test_invalid_utf8_and_unknown_kind_name_the_line(tmp_path):
    p = tmp_path / 'x.jsonl'
    p.write_bytes(b'{"kind":"run_start"}\n')
    with pytest.raises(LogError, match='x.jsonl:1: run_start event lacks field `run`'): read_log(p)
    p.write_bytes(b'\xff\n')
    with pytest.raises(LogError, match='x.jsonl:1: invalid UTF-8'): read_log(p)
    p.write_bytes(b'{"kind":"nap","run":"R","level":1}\n')
    assert verify(p).line == 1 and 'unknown event kind' in verify(p).message
