"""Nothing memgate prints or writes can drive a terminal or a page (issue 18, item 3): every text from a session, a
model or a server passes one rule at the output edge (`memgate.terminal.visible`); Markdown escapes HTML; plot labels
escape mathtext."""
import json, re
from conftest import FIXTURES
from memgate.testing import FakeServer
from memgate.parser import gate_response
from helpers import memgate

Q = 'infra-root-causes'
EVIL = '\x1b[2J\x1b]52;c;aGVsbG8=\x07\x1b]8;;http://evil.example\x1b\\link\x1b]8;;\x1b\\\x1b]0;pwned\x07\x9b31m\u202eevil'
RAW = re.compile('[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]')
PROJECT = str(FIXTURES / 'transcripts')

def hostile_model(prompt):
    "A model whose think, memory and answer carry escape sequences and markup."
    if '\n<updates> ' in prompt: return f'the answer {EVIL}'
    return gate_response(True, f'- {EVIL} <script>alert(1)</script>', think=f'{EVIL} <img src=x onerror=alert(1)>')

def clean(r):
    "The printed text of `r`, asserted free of any raw control, C1 or bidi character."
    for name, text in (('stdout', r.stdout), ('stderr', r.stderr)):
        assert not RAW.search(text), f"{name}: {RAW.search(text)[0]!r} in {text[:500]!r}"
    return r.stdout

def test_a_models_escapes_reach_no_terminal(tmp_path):
    with FakeServer(gate=hostile_model) as s:
        r = memgate('ingest', '--project', PROJECT, '--query', Q, '--limit', 3, '--base-url', s.url, '--model',
                    'test-model', '--log-dir', tmp_path, '--answer')
        assert r.returncode == 0, r.stderr
        clean(r)
    log = tmp_path / 'transcripts' / f'{Q}.jsonl'
    shown = clean(memgate('show', log, '--evidence'))
    assert '␛[2J' in shown and '⟨U+009B⟩31m' in shown and '⟨U+202E⟩evil' in shown     # shown, visibly
    clean(memgate('show', log, '--format', 'json'))
    clean(memgate('prompt', '--project', PROJECT, '--log', log, '--chunk', 3))
    md = clean(memgate('show', log, '--format', 'md'))
    live = re.sub(r'(`{3,})\n.*?\n\1', '', md, flags=re.S)      # a fenced block shows its text as code, never as HTML
    assert '<script>alert(1)</script>' in md and '<script' not in live and '<img' not in live
    assert '&lt;img src=x onerror=alert(1)&gt;' in live
    # the report's page too (issue 26: its index.html carried raw ESC, OSC 52/8, C1, bidi overrides and NUL)
    assert memgate('report', tmp_path, '--out', tmp_path / 'report').returncode == 0
    page = (tmp_path / 'report' / 'index.html').read_text(encoding='utf-8')
    assert not RAW.search(page), RAW.search(page)
    assert '␛[2J' in page and '⟨U+009B⟩31m' in page and '&lt;script&gt;' in page and '<script' not in page

def test_a_servers_error_body_and_model_name_reach_no_terminal(tmp_path):
    with FakeServer(faults=['hostile']) as s:
        r = memgate('ingest', '--project', PROJECT, '--query', Q, '--limit', 1, '--base-url', s.url, '--model',
                    'test-model', '--log-dir', tmp_path, '--retries', 0)
    assert r.returncode == 1 and 'overloaded ␛[2J' in clean(r) + r.stderr
    with FakeServer(models=[f'm{EVIL}']) as s:
        r = memgate('ingest', '--project', PROJECT, '--query', Q, '--limit', 1, '--base-url', s.url, '--model',
                    f'm{EVIL}', '--log-dir', tmp_path / 'b')
    clean(r)

def test_a_sessions_timestamps_file_names_and_cwd_reach_no_terminal(tmp_path):
    line = dict(type='user', sessionId='s1', uuid='u1', timestamp=f'2025-01-01T00:00:00Z{EVIL}', cwd=f'/p/{EVIL}',
                message=dict(role='user', content='the deploy failed with an error'))
    f = tmp_path / 'sessions' / f's{EVIL[:6]}x.jsonl'
    f.parent.mkdir()
    f.write_text(json.dumps(line) + '\n')
    r = memgate('ingest', '--project', f.parent, '--model', 'keyword-baseline', '--query', Q, '--log-dir',
                tmp_path / 'runs')
    assert r.returncode == 0, r.stderr
    clean(r)
    clean(memgate('chunks', '--project', f.parent))
    clean(memgate('show', tmp_path / 'runs'))
    claude = tmp_path / 'claude' / 'projects' / '-p-x'
    claude.mkdir(parents=True)
    (claude / 's1.jsonl').write_text(json.dumps(line) + '\n')
    clean(memgate('projects', CLAUDE_CONFIG_DIR=str(tmp_path / 'claude'), CODEX_HOME=str(tmp_path / 'codex')))

def test_mathtext_in_a_project_or_model_name_draws_as_written(tmp_path):
    with FakeServer(models=['$\\foo{$']) as s:
        r = memgate('ingest', '--project', PROJECT, '--query', Q, '--limit', 2, '--base-url', s.url, '--model',
                    '$\\foo{$', '--log-dir', tmp_path / 'runs')
    assert r.returncode == 0, r.stderr
    r = memgate('report', tmp_path / 'runs', '--out', tmp_path / 'report')
    assert r.returncode == 0 and (tmp_path / 'report' / 'index.html').exists(), r.stderr
