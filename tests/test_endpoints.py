"""Several endpoints serving one model (issue 52): each run keeps one and names itself in `X-Session-ID`; an endpoint
that fails mid-run hands its runs to another with no turn lost or logged twice; endpoints that serve another model or
dialect are refused before any call, naming the odd one."""
import json
from pathlib import Path
from helpers import ROOT, memgate
from memgate.testing import FakeServer

PROJECT = ROOT / 'fixtures' / 'transcripts'

def turns(folder: Path) -> dict[str, list[dict]]:
    "Each log's gate events (a turn each), by the log's name."
    return {p.name: [e for e in map(json.loads, p.read_text().splitlines()) if e['kind'] == 'gate']
            for p in sorted(folder.rglob('*.jsonl'))}

def test_an_endpoint_that_fails_mid_run_hands_its_runs_on_and_every_turn_is_logged_once(tmp_path):
    with FakeServer(stop_after=6) as a, FakeServer() as b:
        r = memgate('ingest', '--project', PROJECT, '--base-url', a.url, '--base-url', b.url, '--model', 'test-model',
                    '--query', 'infra-root-causes', '--query', 'build-and-test-failures', '--limit', '8',
                    '--retries', '1', '--retry-wait', '0.05', '--log-dir', tmp_path / 'logs')
        sent = a.headers + b.headers
    assert r.returncode == 0, r.stderr
    logs = turns(tmp_path / 'logs')
    assert len(logs) == 2
    for events in logs.values():
        # every chunk's turn, once, in order
        assert [e['t'] for e in events] == list(range(1, 9))
        assert {e['endpoint'] for e in events} <= {a.url + '/chat/completions', b.url + '/chat/completions'}
    served = [e['endpoint'] for events in logs.values() for e in events]
    assert b.url + '/chat/completions' in served
    # each run named itself, the same name at every turn
    names = {h.get('X-Session-ID') for h in sent if 'X-Session-ID' in h}
    assert names == {'transcripts/infra-root-causes', 'transcripts/build-and-test-failures'}, names
    assert f"{a.url}/chat/completions failed" in r.stderr and f"its runs move to {b.url}" in r.stderr, r.stderr

def test_endpoints_serving_another_model_or_dialect_are_refused_before_any_call(tmp_path):
    with FakeServer(owned_by='vllm') as a, FakeServer(owned_by='sglang') as b:
        r = memgate('ingest', '--project', PROJECT, '--base-url', a.url, '--base-url', b.url, '--model', 'test-model',
                    '--query', 'infra-root-causes', '--limit', '2', '--log-dir', tmp_path / 'logs')
        calls = len(a.requests) + len(b.requests)
    assert r.returncode != 0 and calls == 0
    line = r.stderr.strip()
    assert len(line.splitlines()) == 1 and 'Traceback' not in line, line
    assert f"{b.url}/chat/completions is a sglang server" in line and 'every --base-url must serve the same' in line
    with FakeServer(models=('test-model',), owned_by='vllm') as a, \
            FakeServer(models=('other-model',), owned_by='vllm') as b:
        r = memgate('ingest', '--project', PROJECT, '--base-url', a.url, '--base-url', b.url, '--model', 'test-model',
                    '--query', 'infra-root-causes', '--limit', '2', '--log-dir', tmp_path / 'logs2')
    assert r.returncode != 0 and 'serves ' in r.stderr and b.url in r.stderr, r.stderr

def test_base_urls_read_from_a_file_are_the_endpoints_and_an_unreadable_one_is_one_line(tmp_path):
    urls = tmp_path / 'gpus.txt'
    with FakeServer() as a, FakeServer() as b:
        urls.write_text(f'# replicas\n{a.url}\n\n{b.url}  # the second\n')
        r = memgate('ingest', '--project', PROJECT, '--base-url', f'@{urls}', '--model', 'test-model',
                    '--query', 'infra-root-causes', '--limit', '2', '--log-dir', tmp_path / 'logs')
    assert r.returncode == 0, r.stderr
    start = json.loads((tmp_path / 'logs' / 'transcripts' / 'infra-root-causes.jsonl').read_text().splitlines()[0])
    assert start['server']['endpoints'] == [a.url + '/chat/completions', b.url + '/chat/completions']
    r = memgate('ingest', '--project', PROJECT, '--base-url', f'@{tmp_path / "none.txt"}', '--model', 'test-model')
    assert r.returncode != 0 and len(r.stderr.strip().splitlines()) == 1 and 'none.txt' in r.stderr, r.stderr
