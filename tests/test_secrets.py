"Secrets stay home: planted ones never reach the model, the log, the recording or the terminal; nor URL credentials."
import json, os, subprocess, sys
from memgate.redact import REDACTOR_VERSION
from memgate.reading import RENDERER_VERSION
from memgate.testing import FakeServer
from synth import cc, write_jsonl
from memgate.log import read_log

SECRETS = {
    'openai-key': 'sk-proj-' + 'Ab3dEf6hIj9kLm2nOp5q' * 2,
    'anthropic-key': 'sk-ant-api03-' + 'Zy8xWv7uTs6rQp5oNm4l' * 2,
    'aws-access-key': 'AKIAZR8KP2LM5NX7QW1T',      # not AWS's documented example: that one is allowed
    'aws-secret-key': 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYzR8kP2lM5n',
    'github-token': 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0' * 2,
    'slack-token': 'xoxb-123456789012-abcdefABCDEF',
    'authorization': 'Zm9vOmJhcjEyMzQ1Njc4',
    'password': 'hunter2-correct-horse',
}
URL_SECRET = 'sk-in-the-url-0123456789'

def planted_session(root):
    "A Claude Code session whose tool results and prompts are full of secrets, as real ones are (`cat .env`, `env`)."
    env = '\n'.join([f"OPENAI_API_KEY={SECRETS['openai-key']}", f"ANTHROPIC_API_KEY={SECRETS['anthropic-key']}",
                     f"AWS_ACCESS_KEY_ID={SECRETS['aws-access-key']}",
                     f"aws_secret_access_key={SECRETS['aws-secret-key']}", f"GITHUB_TOKEN={SECRETS['github-token']}",
                     f"SLACK={SECRETS['slack-token']}", f"DB_PASSWORD={SECRETS['password']}", 'error: deploy failed'])
    rows = [cc('user', '2026-01-01T10:00:00.000Z', f"my key is {SECRETS['openai-key']}, deploy please"),
            cc('assistant', '2026-01-01T10:00:01.000Z',
               [dict(type='tool_use', id='t1', name='Bash', input=dict(command='cat .env'))]),
            cc('user', '2026-01-01T10:00:02.000Z', [dict(type='tool_result', tool_use_id='t1', content=env)]),
            cc('assistant', '2026-01-01T10:00:03.000Z',
               [dict(type='tool_use', id='t2', name='Bash',
                     input=dict(command=f"curl -H 'Authorization: Bearer {SECRETS['authorization']}' api"))]),
            cc('user', '2026-01-01T10:00:04.000Z', [dict(type='tool_result', tool_use_id='t2', is_error=True,
                                                         content='error: 401 unauthorized')])]
    return write_jsonl(root / 'S1.jsonl', rows)

def ingest(s, log_dir, project, *args, model='test-model', **env):
    url = s.url.replace('http://', f'http://bob:{URL_SECRET}@')
    cmd = [sys.executable, '-m', 'memgate.cli', 'ingest', '--project', str(project), '--base-url', url, '--model',
           model, '--log-dir', str(log_dir), '--query', 'infra-root-causes', '--retries', '1', '--retry-wait', '0.01',
           *args]
    clean = {k: v for k, v in os.environ.items() if not k.startswith(('MEMGATE_', 'OPENAI_'))}
    return subprocess.run(cmd, capture_output=True, text=True, env={**clean, **env})

def test_no_planted_secret_is_sent_written_or_printed(tmp_path):
    project = planted_session(tmp_path / 'sessions').parent
    rec = tmp_path / 'rec.jsonl'
    with FakeServer(api_key=URL_SECRET) as s:
        r = ingest(s, tmp_path / 'runs', project, MEMGATE_RECORD=str(rec))
        sent = json.dumps(s.requests)
        headers = s.headers
    assert r.returncode == 0, r.stderr
    log = tmp_path / 'runs' / 'sessions' / 'infra-root-causes.jsonl'
    everything = {'sent to the model': sent, 'log': log.read_text(), 'recording': rec.read_text(),
                  'stdout': r.stdout, 'stderr': r.stderr}
    for where, text in everything.items():
        for kind, secret in SECRETS.items(): assert secret not in text, (kind, where)
        assert URL_SECRET not in text, where
    assert '[REDACTED:openai-key]' in sent and '[REDACTED:password]' in sent
    assert {h['Authorization'] for h in headers} == {f'Bearer {URL_SECRET}'}    # the URL's password, as the key
    start, end = read_log(log).events[0], read_log(log).events[-1]
    assert end['kind'] == 'run_end' and end['redacted'] == {
        'openai-key': 2, 'anthropic-key': 1, 'aws-access-key': 1, 'aws-secret-key': 1, 'github-token': 1,
        'slack-token': 1, 'authorization': 1, 'password': 1}
    assert (start['config']['redactor'], start['config']['renderer']) == (REDACTOR_VERSION, RENDERER_VERSION)
    assert 'redacted 9 secrets' in r.stderr

def test_a_password_in_the_base_url_never_shows_in_errors(tmp_path):
    project = planted_session(tmp_path / 'sessions').parent
    with FakeServer(models=('other',)) as s: r = ingest(s, tmp_path / 'runs', project)      # 404: a wrong model
    assert r.returncode == 1 and 'answered HTTP 404' in r.stderr
    log = tmp_path / 'runs' / 'sessions' / 'infra-root-causes.jsonl'
    assert URL_SECRET not in r.stderr + r.stdout + log.read_text() and 'bob' not in r.stderr
    # a failure a resume can go on from (a call given up) offers the command, the URL's secrets masked
    with FakeServer(faults=['500'] * 4) as s: r = ingest(s, tmp_path / 'busy', project)
    assert r.returncode == 1 and 'gave up after 2 tries; last: HTTP 500' in r.stderr, r.stderr
    assert URL_SECRET not in r.stderr + r.stdout and 'bob' not in r.stderr
    assert r.stderr.rstrip().endswith("--resume (with the URL's secrets, shown as ***, typed again)")
    with FakeServer() as gone: pass                            # a port nobody listens on any more
    r = ingest(gone, tmp_path / 'down', project)               # connection refused: said at once, no log
    assert r.returncode == 2 and 'nothing is listening at http://127.0.0.1:' in r.stderr
    assert URL_SECRET not in r.stderr + r.stdout and 'bob' not in r.stderr

def test_no_redact_sends_the_text_as_it_is(tmp_path):
    project = planted_session(tmp_path / 'sessions').parent
    with FakeServer() as s:
        r = ingest(s, tmp_path / 'runs', project, '--no-redact')
        sent = json.dumps(s.requests)
    assert r.returncode == 0 and SECRETS['openai-key'] in sent
    assert read_log(tmp_path / 'runs' / 'sessions' / 'infra-root-causes.jsonl').events[0]['config']['redactor'] is None
