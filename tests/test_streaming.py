"""A local model on a CPU (issue 28), played by the scripted server: answers streamed and timed by their silence,
work memgate gives up on waited out rather than queued behind, and `--fast-no` reading a no only to its `</check>`."""
import asyncio, re, subprocess, sys
from conftest import FIXTURES
from memgate.testing import FakeServer
from memgate.client import ClientError, OpenAIClient, Retry
from memgate.log import read_log
from memgate.parser import gate_response
from helpers import clean_env

PROJECT, Q = str(FIXTURES / 'transcripts'), 'infra-root-causes'
LABELS = FIXTURES.parent / 'labels'
ASK = [dict(role='user', content='the chunk')]

def ask(server, **kw):
    "One completion from `server` through a client made with `kw`: (the completion or the error, the client)."
    async def go():
        client = OpenAIClient(server.url, 'test-model', retry=Retry(kw.pop('attempts', 3), 0.01), **kw)
        try: return await client.complete(ASK, max_tokens=512), client
        except ClientError as e: return e, client
        finally: await client.aclose()
    return asyncio.run(go())

def test_a_retry_is_not_sent_while_the_server_still_reads_the_prompt_it_gave_up_on():
    answer = gate_response(False, 'memory', think='nothing here')
    notes = []
    # a timeout far above what a loaded machine adds to an answer that starts at once, and a first prompt read
    # far above the timeout: what the test asserts is an order of events, which no load changes
    with FakeServer(gate=lambda p: answer, slots=1, prompt_s=lambda n: 6.0 if n == 1 else 0.0, token_s=0.01) as s:
        done, _ = ask(s, timeout_s=2.0, log=notes.append)
    assert done.text == answer and done.tries == 2
    first, retry = s.work
    assert first['status'] == 'hung up' and first['began'] is not None        # it read the prompt, then stopped
    assert s.arrivals[1] >= first['began'], (s.arrivals, first)                # the retry came once it had begun
    # (the retry answered: its text is the answer above; the server may count it `hung up` when the client closes
    # as the last bytes go, a race a loaded machine shows, so its own word is not asked)
    assert retry['began'] is not None and any('still reading the prompt' in n for n in notes), notes

def test_a_long_steady_answer_is_not_timed_out_and_a_silent_server_is():
    long = gate_response(True, 'word ' * 60, think='a long memory, streamed slowly')
    with FakeServer(gate=lambda p: long, token_s=0.05, piece=8) as s:
        done, _ = ask(s, timeout_s=0.5)
    assert done.text == long and done.tries == 1 and done.decode_s > 0.5 * 2     # longer than the timeout, all told
    for fault in ('silent', 'ping'):                                             # keep-alive comments are not an answer
        with FakeServer(faults=[fault] * 2) as s:
            failed, _ = ask(s, timeout_s=0.3, attempts=2)
        assert isinstance(failed, ClientError), (fault, failed)
        assert str(failed).endswith('gave up after 2 tries; last: no token in 0.3s'), (fault, str(failed))

def ingest(server, log_dir, *args):
    return subprocess.run([sys.executable, '-m', 'memgate.cli', 'ingest', '--project', PROJECT, '--query', Q,
                           '--base-url', server.url, '--model', 'test-model', '--log-dir', str(log_dir),
                           '--limit', '6', *args], capture_output=True, text=True, timeout=120, env=clean_env())

def test_fast_no_reads_a_no_only_to_its_check_and_keeps_the_memory(tmp_path):
    def gate(prompt):            # no on every chunk but the first, with the memory copied out after it, as models do
        yes = 'No previous memory' in prompt
        return gate_response(yes, ('- a failure seen\n' * 40).strip(), think='copying memory' if not yes else 'new')
    with FakeServer(gate=gate, token_s=0.002, piece=4) as s:
        r = ingest(s, tmp_path, '--fast-no')
    assert r.returncode == 0, r.stderr
    events = read_log(tmp_path / 'transcripts' / f'{Q}.jsonl').events
    gates = [e for e in events if e['kind'] == 'gate']
    assert [g['update'] for g in gates] == [True] + [False] * 5
    assert [g['exit'] for g in gates] == [False] + [None] * 5                    # the exit gate not asked on a no
    assert all('<check>no</check>' in g['raw'] and '<update>' not in g['raw'] and g['fast_no'] for g in gates[1:])
    assert [w['status'] for w in s.work] == ['answered'] + ['hung up'] * 5       # the rest was never decoded
    start = next(e for e in events if e['kind'] == 'run_start')
    assert start['config']['fast_no'] is True and 'fast-no' in r.stdout
    assert [e['kind'] for e in events].count('memory') == 1

def test_the_context_check_counts_in_the_servers_tokens_and_a_context_nobody_said_is_unknown(tmp_path):
    from memgate.domain import count_tokens
    more = lambda text: int(count_tokens(text) * 1.3) + 1          # a tokenizer that counts 30% more than cl100k
    with FakeServer(owned_by='me', tokenize=more) as s:            # llama-cpp-python: /extras/tokenize
        fits = ingest(s, tmp_path / 'fits', '--context', '12000', '--limit', '1')
        refused = ingest(s, tmp_path / 'refused', '--context', '9000', '--limit', '1')
        calls = len(s.requests)
    assert fits.returncode == 0, fits.stderr                       # 8,000 of memgate's tokens: 10,400 of its own
    start = read_log(tmp_path / 'fits' / 'transcripts' / f'{Q}.jsonl').events[0]
    assert start['server']['tokens_said'] == '/extras/tokenize' and 1.25 < start['server']['tokens_ratio'] < 1.35
    assert refused.returncode == 2 and calls == 1, refused.stderr    # refused before any call
    assert "the server's tokenizer counts 1.3" in refused.stderr and "x as many (/extras/tokenize)" in refused.stderr
    with FakeServer() as s: unsaid = ingest(s, tmp_path / 'unsaid', '--limit', '1')
    assert unsaid.returncode == 0, unsaid.stderr
    assert read_log(tmp_path / 'unsaid' / 'transcripts' / f'{Q}.jsonl').events[0]['config']['context'] is None

def test_answer_sends_no_more_requests_at_once_than_the_server_has_slots(tmp_path):
    with FakeServer() as s:
        r = subprocess.run([sys.executable, '-m', 'memgate.cli', 'ingest', '--project', PROJECT, '--base-url', s.url,
                            '--model', 'test-model', '--log-dir', str(tmp_path), '--limit', '2'],
                           capture_output=True, text=True, timeout=120, env=clean_env())
    assert r.returncode == 0, r.stderr
    with FakeServer(owned_by='me', latency=0.3) as s:                  # llama-cpp-python: one request at a time
        r = subprocess.run([sys.executable, '-m', 'memgate.cli', 'answer', str(tmp_path), '--base-url', s.url,
                            '--model', 'test-model'], capture_output=True, text=True, timeout=120, env=clean_env())
    assert r.returncode == 0, r.stderr
    assert len(s.requests) == 4 and s.most_busy == 1                   # four logs, one answer at a time

def test_the_pace_of_the_first_call_says_how_long_the_run_takes(tmp_path):
    with FakeServer(owned_by='me', latency=1.2) as s: r = ingest(s, tmp_path, '--limit', '3')
    assert r.returncode == 0, r.stderr
    said = [line for line in r.stderr.splitlines() if 'the first call took' in line]
    assert len(said) == 1 and re.fullmatch(r"transcripts: the first call took 1\.\ds: at that pace the 3 calls take "
                                           r"about \d\.\ds \(1 at a time\)", said[0]), r.stderr

def test_labels_say_the_chunking_they_are_for(tmp_path):
    with FakeServer() as s: r = ingest(s, tmp_path, '--chunk-tokens', '1200', '--limit', '4')
    assert r.returncode == 0, r.stderr
    log = tmp_path / 'transcripts' / f'{Q}.jsonl'
    with_sized = subprocess.run([sys.executable, '-m', 'memgate.cli', 'eval', str(log), '--labels', str(LABELS)],
                                capture_output=True, text=True, env=clean_env())
    assert with_sized.returncode == 0 and '4 labelled chunks every run read' in with_sized.stdout, with_sized.stderr
    only = tmp_path / 'labels' / 'transcripts'                            # the 5000-token labels alone
    only.mkdir(parents=True)
    (only / f'{Q}.toml').write_text((LABELS / 'transcripts' / f'{Q}.toml').read_text())
    r = subprocess.run([sys.executable, '-m', 'memgate.cli', 'eval', str(log), '--labels', str(tmp_path / 'labels')],
                       capture_output=True, text=True, env=clean_env())
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1, r.stderr
    assert 'these labels are for --chunk-tokens 5000' in r.stderr and 'the run read chunks of 1200' in r.stderr
