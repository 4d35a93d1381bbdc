"""What real models and servers do (issue 17), played by the scripted server: one slot and a queue, cut answers,
reasoning fields, context limits, query-string URLs, runaway answers, grammars in each server's dialect."""
import json, subprocess, sys
import pytest
from conftest import FIXTURES
from memgate.testing import FakeServer, default_gate
from memgate.log import read_log, stats, verify
from memgate.parser import gate_format, gate_response, parse_gate_response
from helpers import clean_env

PROJECT, Q = str(FIXTURES / 'transcripts'), 'infra-root-causes'

def ingest_cmd(server, log_dir, *args, base_url=None) -> list[str]:
    "The command line of `memgate ingest` of the bundled sessions against `server`."
    return [sys.executable, '-m', 'memgate.cli', 'ingest', '--project', PROJECT, '--base-url', base_url or server.url,
            '--model', 'test-model', '--log-dir', str(log_dir), '--retry-wait', '0.05', *map(str, args)]

def ingest(server, log_dir, *args, base_url=None, timeout=120):
    "`memgate ingest` of the bundled sessions against `server`; the CompletedProcess."
    return subprocess.run(ingest_cmd(server, log_dir, *args, base_url=base_url), capture_output=True, text=True,
                          timeout=timeout, env=clean_env())

def events(log_dir, q=Q): return read_log(log_dir / 'transcripts' / f'{q}.jsonl').events
def turns(log_dir, q=Q): return [e for e in events(log_dir, q) if e['kind'] in ('gate', 'parse_failed')]

def test_a_one_slot_server_with_four_queries_logs_turns_steadily(tmp_path):
    "The old client kept 4 requests queued at a one-worker server: the last timed out, its retry queued again."
    with FakeServer(slots=1, latency=0.5) as s:
        r = ingest(s, tmp_path, '--limit', 3, '--timeout', 1.6, '--retries', 1)
    assert r.returncode == 0, r.stderr
    assert [len(turns(tmp_path, q)) for q in ('infra-root-causes', 'build-and-test-failures', 'conventions',
                                               'design-decisions')] == [3, 3, 3, 3]
    assert 'the server answers slower with more requests at once (' in r.stderr

def test_a_server_that_says_its_slots_gets_no_more_requests_than_that(tmp_path):
    props = dict(default_generation_settings=dict(n_ctx=32768), total_slots=1)
    with FakeServer(slots=1, latency=0.2, owned_by='llamacpp', props=props) as s:
        r = ingest(s, tmp_path, '--limit', 2, '--constrain', 'off')
    assert r.returncode == 0 and s.most_busy == 1, r.stderr
    assert 'llama.cpp server, context 32768 (/props n_ctx), 1 slot; unconstrained (--constrain off)' in r.stderr

def cut(prompt):
    "A model that rambles until max_tokens: its answer stops inside <update>."
    if '\n<updates> ' in prompt: return 'answer'
    return dict(content=gate_response(True, '- a long memory that goes on')[:-30], finish_reason='length')

def test_a_cut_answer_is_reported_as_cut_not_as_misformatted(tmp_path):
    with FakeServer(gate=cut) as s:
        r = ingest(s, tmp_path, '--query', Q, '--limit', 1)
    assert r.returncode == 1
    pf = turns(tmp_path)[0]
    assert pf['kind'] == 'parse_failed' and pf['error'] == 'answer cut at max_tokens 2048: <update> is never closed'
    assert [e['finish_reason'] for e in pf['earlier']] == ['length', 'length'] and pf['finish_reason'] == 'length'
    assert '3 answers cut at max_tokens 2048' in r.stdout
    assert stats(tmp_path / 'transcripts' / f'{Q}.jsonl').cut == 3

def reasoning(prompt):
    "A server with a reasoning parser: the think text comes in its own field, the content has none."
    said = parse_gate_response(default_gate(prompt))
    return dict(content=gate_response(said.update_gate, said.candidate), reasoning_content='the chunk shows a failure')

def test_a_servers_reasoning_field_becomes_the_turns_think_text(tmp_path):
    with FakeServer(gate=reasoning) as s:
        r = ingest(s, tmp_path, '--query', Q, '--limit', 2)
    assert r.returncode == 0, r.stderr
    g = turns(tmp_path)[0]
    assert (g['think'], g['think_from']) == ('the chunk shows a failure', 'reasoning')

def test_a_base_url_with_a_query_string_keeps_it_and_masks_its_key(tmp_path):
    with FakeServer(faults=['http404']) as s:
        r = ingest(s, tmp_path, '--query', Q, '--limit', 1, base_url=s.url + '?api-version=2024-02-01&api-key=sk-qs-1')
    assert s.paths == ['/v1/chat/completions?api-version=2024-02-01&api-key=sk-qs-1']
    assert r.returncode == 1 and 'chat/completions?api-version=2024-02-01&api-key=*** answered HTTP 404' in r.stderr
    assert 'sk-qs-1' not in r.stderr + r.stdout + (tmp_path / 'transcripts' / f'{Q}.jsonl').read_text()

def test_a_runaway_answer_is_refused_unread_in_one_line(tmp_path):
    with FakeServer(faults=['huge']) as s:
        r = ingest(s, tmp_path, '--query', Q, '--limit', 1)
    assert r.returncode == 1
    assert 'the answer is over 589,824 bytes (max_tokens 2048 needs far less): not read on' in r.stderr
    assert (tmp_path / 'transcripts' / f'{Q}.jsonl').stat().st_size < 10_000

def test_a_gzip_bomb_is_refused_before_it_inflates(tmp_path):
    "200 MB of answer in a 0.2 MB gzip body: read inflated, a block at a time, up to the cap, then refused."
    probe = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:]); "
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)")
    with FakeServer(faults=['gzip-bomb']) as s:
        r = subprocess.run([sys.executable, '-c', probe, *ingest_cmd(s, tmp_path, '--query', Q, '--limit', 1)],
                           capture_output=True, text=True, timeout=120, env=clean_env())
    assert 'the answer is over 589,824 bytes' in r.stderr, r.stderr
    peak_kb = int(r.stderr.splitlines()[-1])
    print(f"peak RSS {peak_kb / 1024:.0f} MB")
    assert peak_kb < 300_000                # far from the 200 MB it inflates to, on top of memgate's own ~100 MB

def test_a_context_the_server_says_refuses_a_run_that_cannot_fit_before_any_call(tmp_path):
    with FakeServer(max_model_len=4096, owned_by='vllm') as s:
        r = ingest(s, tmp_path, '--query', Q)
        fits = ingest(s, tmp_path / 'fits', '--query', Q, '--limit', 1, '--chunk-tokens', 500, '--max-tokens', 1024)
    assert r.returncode == 2 and not s.requests[:-1] and len(r.stderr.splitlines()) == 1, r.stderr
    assert ("a prompt of this run may hold 6341 tokens (template 281, question 36, memory budget 1024, chunk 5000) "
            "and its answer 2048 (--max-tokens): 8389 > the model's context 4096 (/v1/models max_model_len)"
            ) in r.stderr
    assert fits.returncode == 0 and events(tmp_path / 'fits')[0]['server']['context'] == 4096, fits.stderr

def test_a_prompt_the_server_refuses_as_too_long_is_not_retried(tmp_path):
    with FakeServer(faults=['context'] * 6) as s:
        r = ingest(s, tmp_path, '--query', Q, '--limit', 1)
    assert r.returncode == 1 and len(s.requests) == 1
    assert "the prompt does not fit the model's context: This model's maximum context length is 2048" in r.stderr
    assert stats(tmp_path / 'transcripts' / f'{Q}.jsonl').calls == 1          # the failed call is counted

def test_a_too_long_prompt_that_llama_cpp_python_answers_with_a_500_is_not_retried(tmp_path):
    with FakeServer(faults=['broadcast'] * 6) as s:
        r = ingest(s, tmp_path, '--query', Q, '--limit', 1)
    assert r.returncode == 1 and len(s.requests) == 1 and "does not fit the model's context: could not" in r.stderr

def test_a_server_that_refuses_the_grammar_field_says_so_in_one_line(tmp_path):
    with FakeServer(faults=['unknown-field'], owned_by='llamacpp') as s:
        r = ingest(s, tmp_path, '--query', Q, '--limit', 1, '--context', 32768)
    assert r.returncode == 1 and len(s.requests) == 1
    assert ("answered HTTP 400: Unrecognized request argument supplied: grammar (model 'test-model'; the request "
            "carried `grammar` for --constrain, which --constrain off leaves out)") in r.stderr

@pytest.mark.parametrize('owner,field,value', [
    ('llamacpp', 'grammar', gate_format('gbnf')), ('me', 'grammar', gate_format('gbnf')),
    ('vllm', 'structured_outputs', dict(grammar=gate_format('gbnf'))), ('sglang', 'ebnf', gate_format('gbnf'))])
def test_constrain_auto_sends_the_gate_grammar_in_the_servers_dialect(tmp_path, owner, field, value):
    with FakeServer(owned_by=owner) as s:
        r = ingest(s, tmp_path, '--query', Q, '--limit', 1, '--context', 32768)
    assert r.returncode == 0, r.stderr
    assert s.requests[0][field] == value and f"constrained: the gate format as a GBNF grammar in `{field}`" in r.stderr
    assert events(tmp_path)[0]['server']['fields'] == [field]

def test_ollama_runs_unconstrained_and_says_so(tmp_path):
    with FakeServer(owned_by='library') as s:
        r = ingest(s, tmp_path, '--query', Q, '--limit', 1)
    assert r.returncode == 0 and not {'grammar', 'regex', 'ebnf', 'structured_outputs'} & set(s.requests[0])
    assert "unconstrained: Ollama's OpenAI endpoint constrains to JSON schemas only" in r.stderr

def test_parse_retries_differ_and_every_attempt_is_logged(tmp_path):
    with FakeServer(faults=['garbage', 'garbage']) as s:
        r = ingest(s, tmp_path, '--query', Q, '--limit', 1)
    assert r.returncode == 0, r.stderr
    assert [(b['temperature'], b.get('seed')) for b in s.requests] == [(0.0, None), (0.7, 1), (0.7, 2)]
    g = turns(tmp_path)[0]
    assert [e['raw'] for e in g['earlier']] == ['I would say yes, this chunk matters.'] * 2
    assert events(tmp_path)[0]['config']['retry_temperature'] == 0.7

def test_a_failed_runs_summary_has_its_run_id_elapsed_time_and_calls(tmp_path):
    with FakeServer(faults=['500'] * 4) as s:
        r = ingest(s, tmp_path, '--query', Q, '--limit', 1, '--retries', 1, '--format', 'json')
    (got,), ev = json.loads(r.stdout), events(tmp_path)
    assert r.returncode == 1 and got['run'] == ev[0]['run'] and got['elapsed_s'] == ev[-1]['elapsed_s']
    assert got['calls'] == 2 and ev[-1]['failed_calls'] == 2
    assert verify(tmp_path / 'transcripts' / f'{Q}.jsonl').ok

def test_the_keyword_baseline_quotes_gate_tags_in_sessions_without_breaking(tmp_path):
    session = tmp_path / 's.jsonl'
    line = dict(type='user', sessionId='s1', uuid='u1', timestamp='2025-01-01T00:00:00Z', cwd='/p',
                message=dict(role='user', content='the error was: answer lacked <check>yes</check> and <next>'))
    session.write_text(json.dumps(line) + '\n')
    r = subprocess.run([sys.executable, '-m', 'memgate.cli', 'ingest', '--project', session, '--model',
                        'keyword-baseline', '--query', Q, '--log-dir', tmp_path / 'runs'],
                       capture_output=True, text=True, env=clean_env())
    assert r.returncode == 0 and 'parse-failures 0' in r.stdout, r.stderr + r.stdout
