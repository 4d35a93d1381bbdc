"Events are found by turn, never by content: a yes copying memory, or a memory equal to its chunk, breaks no reader."
import asyncio, json
from memgate.client import ScriptedClient
from memgate.domain import Chunk
from memgate.log import LogWriter, stats, verify
from memgate.loop import LoopConfig, run_loop
from memgate.parser import gate_response
from memgate.queries import Query
from helpers import memgate

def write_log(path, answers, texts):
    "A log of one run over chunks of `texts`, answered by `answers` in order."
    chunks = [Chunk.from_text(i, t) for i, t in enumerate(texts, 1)]
    with LogWriter(path) as w:
        asyncio.run(run_loop(1, Query('q', 'What failed?'), chunks, LoopConfig(), ScriptedClient(answers), w,
                             project='p', model='m'))
    return path

def test_a_yes_that_copies_memory_is_unchanged_and_show_prints_it(tmp_path):
    log = write_log(tmp_path / 'p' / 'q.jsonl', [gate_response(True, '- fact')] * 3, ['a', 'b', 'c'])
    assert verify(log).ok
    s = stats(log)
    assert (s.chunks_used, s.unchanged, s.update_gates) == (1, 2, 3)
    r = memgate('show', log, timeout=20)                    # looped for ever before: a memory was its own parent
    assert r.returncode == 0, r.stderr
    assert '1 used: update-rate 33.3%, said-yes 100.0%, 0 over budget, 2 yes with memory returned unchanged' in r.stdout
    assert r.stdout.count('  t=') == 1
    (d,) = json.loads(memgate('show', log, '--format', 'json', timeout=20).stdout)
    assert (d['stats']['unchanged'], [u['t'] for u in d['updates']]) == (2, [1])

def test_a_memory_equal_to_its_chunk_text_shows_its_evidence(tmp_path):
    log = write_log(tmp_path / 'p' / 'q.jsonl', [gate_response(True, 'deploy failed'), gate_response(False, 'x')],
                    ['deploy failed', 'ok'])
    r = memgate('show', log, '--evidence', timeout=20)      # KeyError: 'source' before
    assert r.returncode == 0 and 'evidence: deploy failed' in r.stdout, r.stderr

def test_an_old_self_parent_log_shows_without_looping(tmp_path):
    "A log written before `unchanged`: its second memory repeats the first and names it as parent (its own sha)."
    log = write_log(tmp_path / 'p' / 'q.jsonl', [gate_response(True, '- fact'), gate_response(True, '- fact\n- more')],
                    ['a', 'b'])
    lines = [json.loads(l) for l in log.read_text().splitlines()]
    mem = next(e for e in lines if e['kind'] == 'memory')
    second = [e for e in lines if e['kind'] == 'memory'][1]
    second.update(text=mem['text'], sha=mem['sha'], parents=[second['parents'][0], mem['sha']])
    for e in lines: e.pop('prev', None), e.pop('seal', None)     # an unchained log, as old logs are
    lines[-1]['final_memory_sha'] = mem['sha']
    log.write_text(''.join(json.dumps(e) + '\n' for e in lines))
    r = memgate('show', log, timeout=20)
    assert r.returncode == 0 and r.stdout.count('  t=') == 2, r.stderr
