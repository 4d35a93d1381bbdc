"""Files stay in their folders (issue 18, item 4): names from sessions and queries are made safe path parts, and no
log, lock or labels file is written through a symbolic link."""
import json, os, tempfile
from pathlib import Path
import pytest
from hypothesis import given, settings, strategies as st
from memgate.files import safe_name
from memgate.ingest import log_path
from memgate.labels import labels_path
from helpers import memgate

Q = 'infra-root-causes'

def session(path, cwd):
    "A one-record Claude Code session whose recorded cwd is `cwd`."
    line = dict(type='user', sessionId='s1', uuid='u1', timestamp='2025-01-01T00:00:00Z', cwd=cwd,
                message=dict(role='user', content='the deploy failed with an error'))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(line) + '\n')
    return path

def ingest(project, log_dir, *args):
    return memgate('ingest', '--project', project, '--model', 'keyword-baseline', '--query', Q, '--log-dir', log_dir,
                   *args)

HOSTILE = ['', '/', '.', '..', 'x/..', '../../etc', '...', '\x1b[2Jevil', 'a\u202eb', 'x' * 300]

@pytest.mark.parametrize('name', HOSTILE)
def test_a_hostile_project_or_query_name_never_leaves_its_folder(tmp_path, name):
    "A project's name comes from a recorded cwd (`/` gave an empty one) or a file name; a query id from a TOML key."
    for path in (log_path(tmp_path, name, Q), log_path(tmp_path, 'p', name), labels_path(tmp_path, name, name)):
        assert path.parent.parent == tmp_path and '..' not in path.parts and path.parent.name, path
        assert path.resolve().is_relative_to(tmp_path.resolve())

@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_any_name_becomes_one_file_name_the_file_system_takes(name):
    "Cut by characters, a name of 100 emoji made a 411-byte part: the file system refused it (ENAMETOOLONG)."
    with tempfile.TemporaryDirectory() as d:
        part = safe_name(name)
        (Path(d) / (part + '.jsonl.lock')).write_text('x')     # a log's lock: the longest name made of it
        assert os.listdir(d) == [part + '.jsonl.lock'], part

def test_a_name_whose_cut_fits_keeps_the_folder_it_had():
    "Names cut by characters that fit stay as they were, so logs begun before are still found on resume."
    assert safe_name('é' * 150) == 'é' * 100 + '-' + safe_name('é' * 150)[-10:]
    assert len(safe_name('\u65e5' * 100).encode()) == 228 + 11

def test_a_project_named_in_long_cjk_logs_into_its_folder(tmp_path):
    "84 CJK letters (252 bytes) name a project; cut at 100 characters its log folder took 263 bytes: ENAMETOOLONG."
    name = '\u65e5' * 84
    session(tmp_path / 'claude' / 'projects' / f'-w-{name}' / 's1.jsonl', f'/w/{name}')
    r = memgate('ingest', '--project', name, '--model', 'keyword-baseline', '--query', Q, '--log-dir',
                tmp_path / 'runs', CLAUDE_CONFIG_DIR=str(tmp_path / 'claude'), CODEX_HOME=str(tmp_path / 'codex'))
    logs = list((tmp_path / 'runs').rglob('*.jsonl'))
    assert r.returncode == 0 and len(logs) == 1 and logs[0].parent.parent == tmp_path / 'runs', r.stderr

def test_a_project_listed_under_claude_with_cwd_root_logs_inside_the_log_dir(tmp_path):
    "A Claude Code session recorded in `/`: its project was named '' and its logs went to the log dir's parent."
    session(tmp_path / 'claude' / 'projects' / '-' / 's1.jsonl', '/')
    r = memgate('ingest', '--project', '-', '--model', 'keyword-baseline', '--query', Q, '--log-dir',
                tmp_path / 'runs', CLAUDE_CONFIG_DIR=str(tmp_path / 'claude'), CODEX_HOME=str(tmp_path / 'codex'))
    logs = [p for p in tmp_path.rglob('*.jsonl') if 'claude' not in p.parts]
    assert r.returncode == 0 and len(logs) == 1 and logs[0].parent.parent == tmp_path / 'runs', (r.stderr, logs)

def test_a_session_file_named_dots_stays_inside(tmp_path):
    r = ingest(session(tmp_path / '...jsonl', '/p'), tmp_path / 'runs')
    assert r.returncode == 0, r.stderr
    assert [p.parent.parent for p in (tmp_path / 'runs').rglob('*.jsonl')] == [tmp_path / 'runs']

def test_a_log_that_is_a_symlink_is_refused_and_its_target_untouched(tmp_path):
    target = tmp_path / 'precious.txt'
    target.write_text('line one\nline two without a newline')
    project = session(tmp_path / 'sessions' / 's1.jsonl', '/p')
    name = safe_name('s1')                 # a session file's project is named after the file
    (tmp_path / 'runs' / name).mkdir(parents=True)
    (tmp_path / 'runs' / name / f'{Q}.jsonl').symlink_to(target)
    for args in ((), ('--resume',)):
        r = ingest(project, tmp_path / 'runs', *args)
        assert r.returncode != 0 and 'is a symbolic link: memgate writes no log through one' in r.stderr, r.stderr
        assert target.read_text() == 'line one\nline two without a newline'

def test_a_lock_file_that_is_a_symlink_is_refused_and_its_target_untouched(tmp_path):
    target = tmp_path / 'precious.txt'
    target.write_text('keep me')
    project = session(tmp_path / 'sessions' / 's1.jsonl', '/p')
    (tmp_path / 'runs' / 's1').mkdir(parents=True)
    (tmp_path / 'runs' / 's1' / f'{Q}.jsonl.lock').symlink_to(target)
    r = ingest(project, tmp_path / 'runs')
    assert r.returncode != 0 and 'is a symbolic link' in r.stderr and target.read_text() == 'keep me'

def test_a_project_folder_that_is_a_symlink_is_refused(tmp_path):
    elsewhere = tmp_path / 'elsewhere'
    elsewhere.mkdir()
    project = session(tmp_path / 'sessions' / 's1.jsonl', '/p')
    (tmp_path / 'runs').mkdir()
    os.symlink(elsewhere, tmp_path / 'runs' / 's1')
    r = ingest(project, tmp_path / 'runs')
    assert r.returncode != 0 and 'is a symbolic link' in r.stderr and not list(elsewhere.iterdir())
