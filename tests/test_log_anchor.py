"""What the chain proves, and the head that anchors it (issue 18, item 7): anyone who can write a log can rewrite it
and recompute the chain; a kept head (the sha of the last line, printed by every ingest summary) finds that too."""
import json
from conftest import FIXTURES
from memgate.domain import count_tokens, sha256_text
from memgate.log import encode_event, line_sha, GENESIS
from helpers import memgate

PROJECT, Q = str(FIXTURES / 'transcripts'), 'infra-root-causes'

def baseline_log(tmp_path, *args):
    "A keyword-baseline run of infra-root-causes over 4 chunks: (its log, the summary as JSON)."
    r = memgate('ingest', '--project', PROJECT, '--model', 'keyword-baseline', '--query', Q, '--limit', 4,
                '--log-dir', tmp_path, '--format', 'json', *args)
    assert r.returncode == 0, r.stderr
    return tmp_path / 'transcripts' / f'{Q}.jsonl', json.loads(r.stdout)[0]

def rechain(path, events):
    "Write `events` to `path` with the chain and the seals recomputed, as a forger who read memgate's source would."
    prev, out = GENESIS, []
    for e in events:
        e = dict(e, prev=prev)
        if 'seal' in e: e['seal'] = line_sha(encode_event({k: v for k, v in e.items() if k != 'seal'}))
        out.append(encode_event(e))
        prev = line_sha(out[-1])
    path.write_bytes(b''.join(out))

def test_every_summary_prints_the_logs_head_and_verify_head_holds_it(tmp_path):
    log, got = baseline_log(tmp_path)
    lines = log.read_bytes().splitlines()
    assert got['head'] == line_sha(lines[-1]) and got['lines'] == len(lines)
    text = memgate('ingest', '--project', PROJECT, '--model', 'keyword-baseline', '--query', Q, '--limit', 4,
                   '--log-dir', tmp_path, '--resume')
    assert f"  log {log} ({len(lines)} lines, head {got['head'][:16]}): read it with" in text.stdout
    assert memgate('verify', log, '--head', got['head'][:12]).returncode == 0

def test_a_log_cut_at_a_turn_boundary_passes_strict_verify_but_not_its_head(tmp_path):
    log, got = baseline_log(tmp_path)
    lines = log.read_bytes().splitlines(keepends=True)
    cut = max(i for i, l in enumerate(lines) if json.loads(l)['kind'] in ('gate', 'parse_failed'))
    log.write_bytes(b''.join(lines[:cut]))            # the last turn and the run_end gone: whole turns remain
    assert memgate('verify', log, '--strict').returncode == 0
    r = memgate('verify', log, '--head', got['head'])
    assert r.returncode == 1 and f"the log does not hold the head kept ({got['head'][:12]})" in r.stderr

def test_a_rewritten_memory_with_a_recomputed_chain_fails_only_against_the_head(tmp_path):
    log, got = baseline_log(tmp_path)
    events = [json.loads(l) for l in log.read_text().splitlines()]
    mem = [e for e in events if e['kind'] == 'memory'][-1]
    mem.update(text='- the disk never filled', sha=sha256_text('- the disk never filled'),
               tokens=count_tokens('- the disk never filled'))
    events[-1]['final_memory_sha'] = mem['sha']
    rechain(log, events)
    assert memgate('verify', log).returncode == 0                       # the chain alone cannot tell
    assert memgate('verify', log, '--head', got['head']).returncode == 1

def test_resume_recounts_the_memory_and_refuses_one_over_the_budget(tmp_path):
    "A memory claiming 139 tokens for 6,501 passed: the count was trusted because the chain was."
    log, _ = baseline_log(tmp_path)
    events = [json.loads(l) for l in log.read_text().splitlines()]
    mem = [e for e in events if e['kind'] == 'memory'][-1]
    big = '- a line of a memory far over the budget\n' * 650
    mem.update(text=big, sha=sha256_text(big), tokens=139)
    events[-1]['final_memory_sha'] = mem['sha']
    rechain(log, events)
    r = memgate('ingest', '--project', PROJECT, '--model', 'keyword-baseline', '--query', Q, '--log-dir', tmp_path,
                '--resume')
    assert r.returncode == 1
    assert f"its last memory has {count_tokens(big)} tokens (the log says 139), over the memory budget 1024" in r.stderr

def test_verify_says_a_log_whose_last_run_never_ended_is_unfinished(tmp_path):
    log, _ = baseline_log(tmp_path)
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b''.join(lines[:-1]))                # the run_end gone: killed between its last turn and its end
    r = memgate('verify', log)
    assert r.returncode == 0 and 'is unfinished (no run_end: it was killed, or is still being written)' in r.stdout

def test_a_kept_head_proves_the_prefix_after_answer_appends_and_answer_prints_the_new_head(tmp_path):
    "The README in order: ingest printed a head, answer appended a line, and verify --head failed on the old head."
    log, got = baseline_log(tmp_path)
    answered = memgate('answer', log, '--model', 'keyword-baseline')
    lines = log.read_bytes().splitlines()
    new = line_sha(lines[-1])
    assert answered.returncode == 0 and json.loads(lines[-1])['kind'] == 'answer'
    assert f"  log {log} ({len(lines)} lines, head {new[:16]}): keep the head" in answered.stdout
    old = memgate('verify', log, '--head', got['head'][:12])
    assert old.returncode == 0, old.stderr
    assert old.stdout.rstrip().endswith(f"holds the head kept at line {got['lines']}, then 1 line appended: 1 answer")
    now = memgate('verify', log, '--head', new[:16])
    assert now.returncode == 0 and now.stdout.rstrip().endswith(f"ends at the head kept (line {len(lines)})")

def test_a_kept_head_fails_on_an_edit_before_it_even_with_the_chain_recomputed(tmp_path):
    log, got = baseline_log(tmp_path)
    memgate('answer', log, '--model', 'keyword-baseline')
    events = [json.loads(l) for l in log.read_text().splitlines()]
    events[0]['model'] = 'a model that never ran'              # the run_start, long before the head
    rechain(log, events)
    r = memgate('verify', log, '--head', got['head'])
    assert memgate('verify', log).returncode == 0 and r.returncode == 1
    assert f"the log does not hold the head kept ({got['head'][:12]}): a line at or before it" in r.stderr
