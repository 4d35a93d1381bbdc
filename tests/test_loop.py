"Loop contract a1-a10 (nbs/contracts.ipynb; GRU-Mem Algorithm 1): the gated loop's rules, over a scripted model."
import asyncio
import pytest
from conftest import run
from helpers import QUERY, make_chunks, yes, no
from memgate.client import ScriptedClient
from memgate.domain import Chunk, sha256_text
from memgate.log import LogWriter, verify, stats, read_log
from memgate.loop import EventList, LoopConfig, ResumePoint, ResumeError, run_loop

def go(script, n=None, cfg=LoopConfig(), level=1, memory=None, **kw):
    chunks = make_chunks(n or len(script))
    client, sink = ScriptedClient(script), EventList()
    resume = ResumePoint(memory=memory, memory_sha=sha256_text(memory) if memory else None) if memory else None
    out = run(run_loop(level, QUERY, chunks, cfg, client, sink, resume=resume, **kw))
    return out, sink, client

def kinds(sink, kind): return [e for e in sink if e['kind'] == kind]

def test_a1_retain_on_no():
    initial = 'M0: nginx 502 after deploy; root cause: upstream port typo; fix: corrected port'
    out, sink, _ = go([no('something else the model would write')] * 5, memory=initial)
    assert out.memory == initial                      # byte-identical, not just "unchanged count"
    assert out.stats.chunks_used == 0 and kinds(sink, 'memory') == [] and kinds(sink, 'evidence') == []
    assert [g['update'] for g in kinds(sink, 'gate')] == [False] * 5

def test_a2_update_on_yes():
    cand = 'pnpm dev failed: EADDRINUSE :3000 (stale process); fixed by killing it'
    script = [no(), no(), yes(cand), no(), no()]
    out, sink, _ = go(script)
    assert out.memory == cand and out.stats.chunks_used == 1
    (m,) = kinds(sink, 'memory')
    assert (m['t'], m['text'], m['sha']) == (3, cand, sha256_text(cand))

def test_a3_exit_gate_off_reads_all():
    out, sink, client = go([no(exit=True)] * 10)
    assert len(client.calls) == 10 and out.stats.chunks_seen == 10 and out.status == 'complete'

def test_a4_exit_gate_on_stops():
    out, sink, client = go([no(exit=True)] * 10, cfg=LoopConfig(use_exit_gate=True))
    assert len(client.calls) == 1 and out.stats.chunks_seen == 1 and out.status == 'exited'
    assert sink[-1]['status'] == 'exited'

def test_a5_exit_always_recorded():
    out, sink, _ = go([no(exit=True)] * 10)
    gates = kinds(sink, 'gate')
    assert len(gates) == 10 and all(g['exit'] is True for g in gates)

def test_a6_budget_exceeded_retains():
    big = ' '.join(f'fact{i}' for i in range(4000))
    out, sink, _ = go([yes('small memory'), yes(big), no()])
    assert out.memory == 'small memory' and out.stats.chunks_used == 1
    (b,) = kinds(sink, 'budget_exceeded')
    assert (b['t'], b['budget']) == (2, 1024) and b['tokens'] > 4000
    assert [m['t'] for m in kinds(sink, 'memory')] == [1]
    assert kinds(sink, 'gate')[1]['update'] is True   # the model's U_t is logged as it said it

def test_a7_parse_retry():
    out, sink, client = go(['I think yes', '<check>yes</check>', yes('m')], n=1)
    assert len(client.calls) == 3 and len(kinds(sink, 'memory')) == 1
    assert client.calls[0] == client.calls[1] == client.calls[2]   # same chunk, same prompt
    assert kinds(sink, 'gate')[0]['attempts'] == 3

def test_a8_parse_failure_is_not_an_update():
    out, sink, client = go(['bad', 'bad', '<check>maybe</check><update>x</update><next>end</next>', yes('later')], n=2)
    assert len(client.calls) == 4
    (pf,) = kinds(sink, 'parse_failed')
    assert (pf['t'], pf['attempts'], pf['raw']) == (1, 3, '<check>maybe</check><update>x</update><next>end</next>')
    assert "<check> has value 'maybe'" in pf['error']
    assert [g['t'] for g in kinds(sink, 'gate')] == [2]   # no gate invented for t=1
    assert out.memory == 'later' and out.stats.chunks_seen == 2

def test_a9_parents_linked():
    out, sink, _ = go([yes('a'), no(), yes('b'), yes('c')])
    ev = {e['t']: e['sha'] for e in kinds(sink, 'evidence')}
    mems = kinds(sink, 'memory')
    assert [m['parents'] for m in mems] == [[ev[1]], [ev[3], sha256_text('a')], [ev[4], sha256_text('b')]]
    assert all(e['sha'] == sha256_text(e['text']) for e in kinds(sink, 'evidence'))

def test_a10_level_is_a_parameter():
    script = [yes('a'), no(), parse := 'nope', parse, parse, yes(' '.join(['x'] * 2000)), yes('b', exit=True)]
    _, l1, _ = go(script, n=5, level=1)
    _, l2, _ = go(script, n=5, level=2)
    volatile = ('run', 'level', 'ts', 'elapsed_s')
    strip = lambda sink: [{k: v for k, v in e.items() if k not in volatile} for e in sink]
    assert strip(l1) == strip(l2)
    assert [e['level'] for e in l1 if e['kind'] != 'evidence'] == [1] * (len(l1) - 2)
    assert [e['level'] for e in l2 if e['kind'] != 'evidence'] == [2] * (len(l2) - 2)
    assert [e['level'] for e in l2 if e['kind'] == 'evidence'] == [1, 1]

def test_l2_reads_memories_as_chunks_from_an_async_source():
    async def memories():
        for i, m in enumerate(['memory one', 'memory two'], 1): yield Chunk.from_text(i, m, 'runs/p/q.jsonl', f't={i}')
    client, sink = ScriptedClient([yes('both'), no()]), EventList()
    out = run(run_loop(2, QUERY, memories(), LoopConfig(), client, sink))
    assert out.memory == 'both' and '<section> memory one </section>' in client.calls[0][0]['content']

def test_limit_caps_turns():
    out, sink, client = go([no()] * 10, limit=4)
    assert len(client.calls) == 4 and len(kinds(sink, 'gate')) == 4

def test_log_of_a_run_verifies_and_stats_agree(tmp_path):
    path = tmp_path / 'p' / 'infra.jsonl'
    with LogWriter(path) as w:
        out = run(run_loop(1, QUERY, make_chunks(6), LoopConfig(),
                           ScriptedClient([yes('a'), no(), 'x', 'x', 'x', yes('b'), no(), yes('z ' * 3000)]), w))
    v = verify(path)
    assert v.ok, str(v)
    s = stats(path)
    assert (s.chunks_seen, s.chunks_used, s.parse_failures, s.budget_exceeded, s.calls) == (6, 2, 1, 1, 8)
    assert s.update_rate == out.stats.update_rate == 2 / 6

def test_cancel_during_a_turn_leaves_whole_turns(tmp_path):
    path = tmp_path / 'q.jsonl'
    async def main():
        client = ScriptedClient([yes(f'm{i}') for i in range(20)], delay=0.05)
        with LogWriter(path) as w:
            task = asyncio.create_task(run_loop(1, QUERY, make_chunks(20), LoopConfig(), client, w))
            await asyncio.sleep(0.18)     # inside the 4th call
            task.cancel()
            with pytest.raises(asyncio.CancelledError): await task
    run(main())
    log = read_log(path).events
    assert [e['kind'] for e in log][-1] == 'run_end' and log[-1]['status'] == 'interrupted'
    assert [e['t'] for e in log if e['kind'] == 'gate'] == [1, 2, 3]
    assert len([e for e in log if e['kind'] == 'memory']) == 3
    assert verify(path).ok

def test_stop_event_ends_between_turns(tmp_path):
    stop = asyncio.Event()
    calls = []
    def on_turn(turn):
        calls.append(turn.t)
        if turn.t == 2: stop.set()
    out, sink, client = go([no()] * 6, stop=stop, on_turn=on_turn)
    assert out.status == 'interrupted' and calls == [1, 2] and len(client.calls) == 2

def test_resume_skips_logged_turns_and_checks_their_shas():
    chunks = make_chunks(5)
    rp = ResumePoint(t=3, memory='m3', memory_sha=sha256_text('m3'),
                     chunk_shas={i: c.sha for i, c in enumerate(chunks[:3], 1)})
    client, sink = ScriptedClient([yes('m4'), no()]), EventList()
    out = run(run_loop(1, QUERY, chunks, LoopConfig(), client, sink, resume=rp))
    assert out.resumed_from == 3 and out.memory == 'm4'
    assert [e['t'] for e in sink if e['kind'] == 'gate'] == [4, 5]
    assert '<memory> m3 </memory>' in client.calls[0][0]['content']
    assert [e for e in sink if e['kind'] == 'memory'][0]['parents'] == [chunks[3].sha, sha256_text('m3')]
    rp.chunk_shas[2] = 'f' * 64
    with pytest.raises(ResumeError, match='chunk 2 has sha'):
        run(run_loop(1, QUERY, chunks, LoopConfig(), ScriptedClient([]), EventList(), resume=rp))

def test_client_failure_ends_run_failed(tmp_path):
    path = tmp_path / 'q.jsonl'
    with LogWriter(path) as w, pytest.raises(RuntimeError, match='server went away'):
        run(run_loop(1, QUERY, make_chunks(3), LoopConfig(),
                     ScriptedClient([yes('a'), RuntimeError('server went away')]), w))
    log = read_log(path).events
    assert log[-1]['status'] == 'failed' and 'server went away' in log[-1]['error'] and verify(path).ok
