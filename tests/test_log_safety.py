"Logs that survive anything: one writer, whole turns checked at both ends, a chain that finds every tampering."
import errno, json, os, subprocess, sys
import pytest
from conftest import FIXTURES, run
from helpers import QUERY, make_chunks, memgate, yes, no
from memgate.client import ScriptedClient
from memgate.log import LogError, LogWriter, read_log, verify
from memgate.loop import LoopConfig, run_loop
from memgate.reading import RENDERER_VERSION

PROJECT, Q = str(FIXTURES / 'transcripts'), 'conventions'

def baseline(log_dir, *args):
    return memgate('ingest', '--project', PROJECT, '--model', 'keyword-baseline', '--query', Q, '--log-dir', log_dir,
                   *args)

def log_of(log_dir): return log_dir / 'transcripts' / f'{Q}.jsonl'
def lines(path): return path.read_text(encoding='utf-8').splitlines(keepends=True)
def final_memory(path): return [e for e in read_log(path).events if e['kind'] == 'memory'][-1]['text']

@pytest.fixture(scope='module')
def reference(tmp_path_factory):
    "An uninterrupted 12-chunk run: the log every repaired run must end up agreeing with."
    d = tmp_path_factory.mktemp('ref')
    assert baseline(d, '--limit', '12').returncode == 0
    return log_of(d)

def test_a_second_writer_is_refused_at_once_naming_the_holder(tmp_path):
    path = tmp_path / 'q.jsonl'
    holder = subprocess.Popen([sys.executable, '-c', f"from memgate.log import LogWriter\nimport time\n"
                               f"w = LogWriter({str(path)!r})\nprint('locked', flush=True)\ntime.sleep(30)"],
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline() == 'locked\n'
    try:
        with pytest.raises(LogError) as e: LogWriter(path)
        assert str(e.value) == (f"{path} is being written by another memgate process (pid {holder.pid}); "
                                "one writer per log")
    finally: holder.kill()
    holder.wait()
    with LogWriter(path): pass                                    # the lock died with its holder
    assert not path.with_name('q.jsonl.lock').exists()            # and a writer leaves no lock file behind

def test_two_resumes_on_one_log_one_runs_the_other_exits_naming_the_lock(tmp_path, reference):
    from memgate.testing import FakeServer
    with FakeServer(latency=0.2) as s:
        cmd = [sys.executable, '-m', 'memgate.cli', 'ingest', '--project', PROJECT, '--base-url', s.url, '--model',
               'test-model', '--query', Q, '--log-dir', str(tmp_path), '--limit', '12']
        first = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        while not first.stderr.readline().startswith('['): pass       # it has written a turn
        second = subprocess.run(cmd + ['--resume'], capture_output=True, text=True, timeout=60)
        assert first.poll() is None                                     # refused while the first still runs
        first.communicate(timeout=60)
    assert second.returncode == 1 and first.returncode == 0
    assert (f"{Q}: failed: {log_of(tmp_path)} is being written by another memgate process (pid {first.pid}); "
            "one writer per log") in second.stderr.splitlines() and 'warning:' not in second.stderr
    assert verify(log_of(tmp_path)).ok and [e['t'] for e in read_log(log_of(tmp_path)).events
                                            if e['kind'] == 'gate'] == list(range(1, 13))

def test_a_write_that_fails_midway_is_cut_back_and_said_in_one_line(tmp_path, monkeypatch):
    path = tmp_path / 'q.jsonl'
    with LogWriter(path) as w:
        run(run_loop(1, QUERY, make_chunks(3), LoopConfig(), ScriptedClient([yes('a'), no(), no()]), w))
    before = path.read_bytes()
    real = os.write
    def half_then_full(fd, data):                   # the disk fills halfway through the next write
        real(fd, bytes(data[:len(data) // 2]))
        raise OSError(errno.ENOSPC, 'No space left on device')
    with LogWriter(path) as w, pytest.raises(LogError) as e:
        monkeypatch.setattr(os, 'write', half_then_full)
        run(run_loop(1, QUERY, make_chunks(3), LoopConfig(), ScriptedClient([yes('b')]), w))
    monkeypatch.undo()
    assert str(e.value) == (f"{path}: could not write a turn (No space left on device); the log was cut back to its "
                            "last whole turn")
    assert path.read_bytes() == before and verify(path).ok

def test_a_log_cut_inside_a_turn_fails_verify_and_resume_redoes_the_turn(tmp_path, reference):
    assert baseline(tmp_path, '--limit', '12').returncode == 0
    log = log_of(tmp_path)
    ls = lines(log)
    gate = max(i for i, l in enumerate(ls) if json.loads(l)['kind'] == 'gate' and json.loads(l)['update']
               and json.loads(ls[i + 1])['kind'] == 'evidence')
    log.write_text(''.join(ls[:gate + 2]), encoding='utf-8')     # the gate and its evidence, not its memory
    v = verify(log)
    assert not v.ok and v.line == gate + 1 and v.message.startswith('the last turn is unfinished: ')
    r = baseline(tmp_path, '--limit', '12', '--resume')
    assert r.returncode == 0, r.stderr
    t = json.loads(ls[gate])['t']
    assert f"dropped the unfinished turn t={t} at its end (line {gate + 1} on); redoing it" in r.stderr
    assert verify(log).ok and final_memory(log) == final_memory(reference)

def tamper(log, how):
    "Change the log the way `how` says; returns the 1-based line verify must name."
    ls = lines(log)
    events = [json.loads(l) for l in ls]
    no_gate = next(i for i, e in enumerate(events) if e['kind'] == 'gate' and not e['update'] and i > 3)
    yes_gate = next(i for i, e in enumerate(events) if e['kind'] == 'gate' and e['update'] and i > 3)
    dump = lambda e: json.dumps(e, ensure_ascii=False, separators=(',', ':')) + '\n'
    if how == 'edit think':                   # a no gate is a turn of its own: its seal breaks
        ls[no_gate] = dump(dict(events[no_gate], think='made up'))
        line = no_gate + 1
    elif how == 'flip update':
        ls[no_gate] = dump(dict(events[no_gate], update=True))
        line = no_gate + 1
    elif how == 'edit config':
        ls[0] = dump(dict(events[0], config=dict(events[0]['config'], memory_budget=4096)))
        line = 1
    elif how == 'delete a no gate':
        del ls[no_gate]
        line = no_gate + 1
    elif how == 'insert a copy':
        ls.insert(no_gate + 1, ls[no_gate])
        line = no_gate + 2
    elif how == 'swap two lines':
        ls[yes_gate + 1], ls[yes_gate + 2] = ls[yes_gate + 2], ls[yes_gate + 1]
        line = yes_gate + 2
    elif how == 'edit memory text':
        m = next(i for i, e in enumerate(events) if e['kind'] == 'memory' and i > 3)
        ls[m] = dump(dict(events[m], text=events[m]['text'] + ' (injected)'))
        line = m + 1
    elif how == 'delete a memory':
        m = next(i for i, e in enumerate(events) if e['kind'] == 'memory' and i > 3)
        del ls[m]
        line = m + 1
    elif how == 'edit the last line':
        ls[-1] = dump(dict(events[-1], status='failed'))
        line = len(ls)
    elif how == 'append garbage':
        ls.append('{"kind":"gate","run":"X","level":1}\n')
        line = len(ls)
    log.write_text(''.join(ls), encoding='utf-8')
    return line

MATRIX = ['edit think', 'flip update', 'edit config', 'delete a no gate', 'insert a copy', 'swap two lines',
          'edit memory text', 'delete a memory', 'edit the last line', 'append garbage']

@pytest.mark.parametrize('how', MATRIX)
def test_every_tampering_is_named_by_verify_and_refused_by_resume(tmp_path, how):
    assert baseline(tmp_path, '--limit', '12').returncode == 0
    log = log_of(tmp_path)
    line = tamper(log, how)
    v = verify(log)
    assert not v.ok and v.line == line, (how, str(v))
    before = log.read_bytes()
    r = baseline(tmp_path, '--limit', '20', '--resume')
    assert r.returncode == 1 and f"{log}:{line}: " in r.stderr and 'does not resume a log that fails verify' in r.stderr
    assert log.read_bytes() == before

def null_content(prompt):
    "A server whose every answer is empty: `content: null` reads as ''."
    return ''

def test_a_run_where_no_answer_parsed_fails_and_resume_redoes_its_turns(tmp_path):
    from memgate.testing import FakeServer
    cmd = lambda s, *a: memgate('ingest', '--project', PROJECT, '--base-url', s.url, '--model', 'test-model',
                                '--query', Q, '--log-dir', tmp_path, '--limit', '5', *a)
    with FakeServer(gate=null_content) as s: r = cmd(s)
    assert r.returncode == 1 and len(s.requests) == 15                    # 5 turns x 3 tries
    assert f"{Q}: failed: no answer was in the gate format in 5 turns; the last answer: ''" in r.stderr
    assert read_log(log_of(tmp_path)).events[-1]['status'] == 'failed' and verify(log_of(tmp_path)).ok
    with FakeServer() as s: r = cmd(s, '--resume')
    assert r.returncode == 0, r.stderr
    assert 'its last run got no answer in the gate format; dropped it (line 1 on) to redo its turns' in r.stderr
    events = read_log(log_of(tmp_path)).events
    assert [e['t'] for e in events if e['kind'] in ('gate', 'parse_failed')] == [1, 2, 3, 4, 5]
    assert all(e['kind'] != 'parse_failed' for e in events) and verify(log_of(tmp_path)).ok

def rechain(ls):
    "The lines with every `prev` recomputed, as a forger would: only the other rules can catch what was changed."
    from memgate.log import GENESIS, line_sha
    out, prev = [], GENESIS
    dump = lambda e: json.dumps(e, ensure_ascii=False, separators=(',', ':'))
    for l in ls:
        e = dict(json.loads(l), prev=prev)
        if 'seal' in e: e['seal'] = line_sha(dump({k: v for k, v in e.items() if k != 'seal'}).encode('utf-8'))
        out.append(dump(e) + '\n')
        prev = line_sha(out[-1].encode('utf-8'))
    return out

@pytest.mark.parametrize('field,value,message', [
    ('memory_budget', 'big', "the run's config has memory_budget 'big', not a number of tokens"),
    ('parents', [{}], 'memory parents must be shas (strings)'),
    ('parents', [123], 'memory parents must be shas (strings)'),
    ('config', 'x', 'run_start field `config` has type str'),
])
def test_verify_reports_a_crafted_log_instead_of_raising(tmp_path, field, value, message):
    assert baseline(tmp_path, '--limit', '6').returncode == 0
    log = log_of(tmp_path)
    ls = lines(log)
    events = [json.loads(l) for l in ls]
    i = 0 if field in ('memory_budget', 'config') else next(i for i, e in enumerate(events) if e['kind'] == 'memory')
    e = events[i]
    if field == 'memory_budget': e['config']['memory_budget'] = value
    else: e[field] = value
    ls[i] = json.dumps(e) + '\n'
    log.write_text(''.join(rechain(ls)), encoding='utf-8')     # a crafted log whose chain was made to hold
    r = memgate('verify', log)
    assert r.returncode == 1 and 'Traceback' not in r.stderr
    line = next(i + 1 for i, e in enumerate(events) if e['kind'] == 'memory') if field == 'memory_budget' else i + 1
    assert r.stderr == f"{log}:{line}: FAILED: {message}\n"

def test_resume_refuses_a_log_written_by_another_renderer(tmp_path):
    assert baseline(tmp_path, '--limit', '3').returncode == 0
    log = log_of(tmp_path)
    ls = lines(log)
    start = json.loads(ls[0])
    ls[0] = json.dumps(dict(start, config=dict(start['config'], renderer=2))) + '\n'
    log.write_text(''.join(rechain(ls)), encoding='utf-8')
    r = baseline(tmp_path, '--limit', '6', '--resume')
    assert r.returncode == 1 and (f"{log}: renderer was 2 when this log was written, now {RENDERER_VERSION}; "
                                  "resuming would mix two runs") in r.stderr
