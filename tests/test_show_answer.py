"What a run learned: `memgate show` prints it exactly, `memgate answer` appends a verifiable answer (the answer step)."
import json
from pathlib import Path
from conftest import FIXTURES
from memgate.testing import ANSWER, FakeServer
from golden import EXPECTED, answer_text
from memgate.log import line_sha, read_log, verify
from memgate.show import lineage
from helpers import memgate

PROJECT = str(FIXTURES / 'transcripts')

def last_memory(log): return [e for e in read_log(log).events if e['kind'] == 'memory'][-1]

def baseline_runs(tmp_path):
    "The README's main job, the keyword baseline over the bundled sessions, into `tmp_path`."
    r = memgate('ingest', '--project', PROJECT, '--model', 'keyword-baseline', '--log-dir', tmp_path)
    assert r.returncode == 0, r.stderr
    return sorted((tmp_path / 'transcripts').glob('*.jsonl'))

def test_answer_prompt_matches_its_golden_file():
    assert answer_text().encode('utf-8') == (EXPECTED / 'answer.txt').read_bytes()

def test_show_prints_each_final_memory_byte_for_byte_with_its_updates(tmp_path):
    logs = baseline_runs(tmp_path)
    r = memgate('show', tmp_path / 'transcripts')
    assert r.returncode == 0, r.stderr
    for log in logs:
        mem, events = last_memory(log), read_log(log).events
        assert f"\n{mem['text']}\n\nupdates:\n" in r.stdout        # verbatim, between its header and the updates
        for u in lineage(events):
            files = '; '.join(Path(s['file']).name + f" {s['first_ts']} .. {s['last_ts']}" for s in u.sources)
            assert f"  t={u.t}  chunk {u.t}  +{len(u.added.splitlines())} lines  {files}\n" in r.stdout
    rows = json.loads(memgate('show', tmp_path / 'transcripts', '--format', 'json').stdout)
    assert [row['log'] for row in rows] == [str(p) for p in logs]
    for row, log in zip(rows, logs):
        assert row['memory'] == last_memory(log)['text'] and row['memory_sha'] == last_memory(log)['sha']
        assert [u['t'] for u in row['updates']] == [u.t for u in lineage(read_log(log).events)]
        assert row['stats']['chunks_seen'] == 31 and 'evidence' not in row['updates'][0]

def test_the_ingest_summary_says_where_the_log_is_and_how_to_read_it(tmp_path):
    r = memgate('ingest', '--project', PROJECT, '--model', 'keyword-baseline', '--query', 'conventions', '--limit', '3',
                '--log-dir', tmp_path)
    log = tmp_path / 'transcripts' / 'conventions.jsonl'
    lines, head = len(log.read_bytes().splitlines()), line_sha(log.read_bytes().splitlines()[-1])
    want = f"  log {log} ({lines} lines, head {head[:16]}): read it with `memgate show {log}`"
    assert r.stdout.splitlines()[-1] == want

def test_answer_appends_one_verified_answer_per_log_and_show_prints_it_first(tmp_path):
    with FakeServer() as s:
        r = memgate('ingest', '--project', PROJECT, '--base-url', s.url, '--model', 'test-model', '--limit', '6',
                    '--query', 'infra-root-causes', '--query', 'conventions', '--log-dir', tmp_path)
        assert r.returncode == 0, r.stderr
        calls = len(s.requests)
        r = memgate('answer', tmp_path, '--base-url', s.url, '--model', 'test-model')
        assert r.returncode == 0, r.stderr
        assert len(s.requests) == calls + 2 and all('\n<updates> ' in p for p in s.prompts()[calls:])
    for log in sorted((tmp_path / 'transcripts').glob('*.jsonl')):
        answers = [e for e in read_log(log).events if e['kind'] == 'answer']
        assert len(answers) == 1 and answers[0]['text'] == ANSWER and answers[0]['model'] == 'test-model'
        assert answers[0]['memory_sha'] == last_memory(log)['sha'] and answers[0]['usage']['prompt_tokens'] == 1
        assert verify(log).ok
        shown = memgate('show', log).stdout
        assert shown.index(ANSWER) < shown.index(last_memory(log)['text'])
    assert f"== {log} (test-model)\n{ANSWER}" in r.stdout

def test_verify_fails_an_answer_naming_a_memory_not_in_the_log(tmp_path):
    log = baseline_runs(tmp_path)[0]
    assert memgate('answer', log).returncode == 0                              # a baseline log needs no model
    lines = log.read_text(encoding='utf-8').splitlines(keepends=True)
    answer = json.loads(lines[-1])
    evidence = next(json.loads(l) for l in lines if json.loads(l)['kind'] == 'evidence')
    lines[-1] = json.dumps(dict(answer, memory_sha=evidence['sha']), ensure_ascii=False) + '\n'
    log.write_text(''.join(lines), encoding='utf-8')
    v = verify(log)
    assert not v.ok and v.line == len(lines)
    assert v.message == f"answer names memory {evidence['sha'][:12]}, which does not appear earlier in the log"

def test_the_keyword_baseline_answers_with_its_memory_and_a_model_log_needs_a_model(tmp_path):
    log = baseline_runs(tmp_path)[0]
    r = memgate('answer', log)
    answer = read_log(log).events[-1]
    assert r.returncode == 0 and answer['verbatim'] is True and answer['text'] == last_memory(log)['text']
    with FakeServer() as s:
        memgate('ingest', '--project', PROJECT, '--base-url', s.url, '--model', 'test-model', '--limit', '3',
                '--query', 'infra-root-causes', '--log-dir', tmp_path / 'm')
    r = memgate('answer', tmp_path / 'm')
    assert r.returncode == 1 and 'not answered: ' in r.stderr and "a model's log is answered by a model" in r.stderr

def test_ingest_answer_runs_then_answers(tmp_path):
    with FakeServer() as s:
        r = memgate('ingest', '--project', PROJECT, '--base-url', s.url, '--model', 'test-model', '--limit', '4',
                    '--query', 'infra-root-causes', '--log-dir', tmp_path, '--answer', '--format', 'json')
    assert r.returncode == 0, r.stderr
    (row,) = json.loads(r.stdout)
    assert row['answer'] == ANSWER and read_log(row['log']).events[-1]['kind'] == 'answer' and verify(row['log']).ok
