"Every caller that reaches a model server makes its client one way: `OpenAIClient.from_endpoint` of the endpoint."
import asyncio
import pytest
from conftest import FIXTURES
from helpers import memgate
from memgate import cli, pipeline, tune
from memgate.client import OpenAIClient
from memgate.log import read_log
from memgate.queries import Query
from memgate.testing import ANSWER, FakeServer

KEY = 'sk-the-servers-own-key'

@pytest.fixture
def made(monkeypatch):
    "The endpoints `from_endpoint` was given, in order, with the environment cleared of a developer's settings."
    for name in ('MEMGATE_BASE_URL', 'OPENAI_BASE_URL', 'MEMGATE_MODEL', 'MEMGATE_API_KEY', 'OPENAI_API_KEY',
                 'MEMGATE_RECORD'):
        monkeypatch.delenv(name, raising=False)
    given, real = [], OpenAIClient.from_endpoint
    def recording(cls, ep, **kw):
        given.append(ep)
        return real(ep, **kw)
    monkeypatch.setattr(OpenAIClient, 'from_endpoint', classmethod(recording))
    return given

def with_key(url: str) -> str: return url.replace('http://', f'http://u:{KEY}@')

def test_memgate_answer_makes_its_client_from_the_endpoint_with_the_urls_password_as_key(made, tmp_path, capsys):
    with FakeServer(api_key=KEY) as s:
        r = memgate('ingest', '--project', FIXTURES / 'transcripts', '--query', 'conventions', '--limit', '2',
                    '--base-url', s.url, '--model', 'test-model', '--log-dir', tmp_path, MEMGATE_API_KEY=KEY)
        assert r.returncode == 0, r.stderr
        calls = len(s.requests)
        assert cli.main(['answer', tmp_path, '--base-url', with_key(s.url), '--model', 'test-model']) == 0
        assert len(s.requests) == calls + 1 and s.headers[-1]['Authorization'] == f'Bearer {KEY}'
    assert [(ep.base_url, ep.model, ep.api_key) for ep in made] == [(s.url, 'test-model', KEY)]
    log = tmp_path / 'transcripts' / 'conventions.jsonl'
    assert read_log(log).events[-1]['text'] == ANSWER
    out = capsys.readouterr()
    assert f"== {log} (test-model)\n{ANSWER}\n" in out.out and KEY not in out.out + out.err

def test_memgate_answer_with_no_model_named_makes_no_client(made, tmp_path, capsys):
    r = memgate('ingest', '--project', FIXTURES / 'transcripts', '--query', 'conventions', '--limit', '2',
                '--model', 'keyword-baseline', '--log-dir', tmp_path)
    assert r.returncode == 0, r.stderr
    assert cli.main(['answer', tmp_path]) == 0 and made == []
    assert read_log(tmp_path / 'transcripts' / 'conventions.jsonl').events[-1]['verbatim'] is True

def test_make_clients_makes_its_client_from_the_endpoint_with_the_options(made, monkeypatch):
    monkeypatch.setenv('OPENAI_API_KEY', KEY)
    with FakeServer(api_key=KEY) as s:
        opts = pipeline.ClientOptions(s.url, 'test-model', concurrency=3, timeout=7.0, retries=0)
        factory, close, model = pipeline.make_clients(opts, print)
        client = factory(None)
        async def ask():
            try: return await client.complete([dict(role='user', content='hi')])
            finally: await close()
        assert asyncio.run(ask()).text and s.headers[-1]['Authorization'] == f'Bearer {KEY}'
    assert [(ep.base_url, ep.model, ep.api_key) for ep in made] == [(s.url, 'test-model', KEY)]
    assert (model, client.slots.limit, client.timeout_s, client.retry.attempts) == ('test-model', 3, 7.0, 1)

def test_the_tuners_client_is_made_from_the_environments_endpoint(made, monkeypatch):
    with FakeServer(api_key=KEY) as s:
        monkeypatch.setenv('MEMGATE_BASE_URL', with_key(s.url))
        monkeypatch.setenv('MEMGATE_MODEL', 'test-model')
        client = tune.env_client(Query('q', 'Q?'))
        async def ask():
            try: return await client.complete([dict(role='user', content='hi')])
            finally: await client.aclose()
        assert asyncio.run(ask()).text and s.headers[-1]['Authorization'] == f'Bearer {KEY}'
    assert [(ep.base_url, ep.model, ep.api_key) for ep in made] == [(s.url, 'test-model', KEY)]
    assert KEY not in repr(client) and client.shown == f'{s.url}/chat/completions'
