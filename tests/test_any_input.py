"Any input, one line: records of every bundled session, mutated in shape, never raise out of reading or chunking."
import json
from hypothesis import HealthCheck, given, settings, strategies as st
from conftest import FIXTURES
from memgate.chunking import chunk_project
from memgate.projects import load_project

SESSIONS = sorted((FIXTURES / 'transcripts').rglob('*.jsonl'))
HEADS = {f: f.read_text(encoding='utf-8').splitlines()[:60] for f in SESSIONS}     # enough of each for every kind
ODD = [None, 0, -1, 1.5, True, '', 'x', [], ['x', 1], {}, {'x': None}]

def paths(obj, prefix=()):
    "Every key path inside a JSON value."
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else ()
    for k, v in items:
        yield prefix + (k,)
        yield from paths(v, prefix + (k,))

@st.composite
def mutated_session(draw):
    "A bundled session's head with one record changed in shape: a value replaced by an odd one, or a key removed."
    f = draw(st.sampled_from(SESSIONS))
    lines = list(HEADS[f])
    i = draw(st.integers(0, len(lines) - 1))
    rec = json.loads(lines[i])
    path = draw(st.sampled_from(list(paths(rec)) or [()]))
    if path:
        *parent, last = path
        target = rec
        for k in parent: target = target[k]
        if isinstance(target, dict) and draw(st.booleans()): del target[last]
        else: target[last] = draw(st.sampled_from(ODD))
    lines[i] = json.dumps(rec)
    return f.name, '\n'.join(lines) + '\n'

@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mutated_session())
def test_a_record_of_any_shape_is_a_counted_warning_not_a_crash(tmp_path_factory, case):
    name, text = case
    d = tmp_path_factory.mktemp('s')
    (d / name).write_text(text, encoding='utf-8')
    project = load_project(d)
    chunks = list(chunk_project(project))
    assert all(isinstance(c.text, str) for c in chunks)
    project.warnings.summary()

def test_the_shapes_the_issue_names_are_read(tmp_path):
    from synth import cc, write_jsonl
    rows = [cc('user', '2026-01-01T10:00:00Z', [dict(type='text', text=None)]),
            cc('user', 1767261600, 'numeric timestamp'),
            dict(cc('user', '2026-01-01T10:00:02Z', 'list type'), type=['user']),
            cc('assistant', '2026-01-01T10:00:03Z', [dict(type='image', source='not a dict')]),
            dict(cc('system', '2026-01-01T10:00:04Z'), subtype=['x'])]
    write_jsonl(tmp_path / 'c' / 'S1.jsonl', rows)
    item = lambda s, **p: dict(timestamp=f'2026-01-01T10:00:0{s}Z', type='response_item', payload=p)
    meta = dict(timestamp='2026-01-01T10:00:00Z', type='session_meta',
                payload=dict(cwd='/x', git=dict(commit_hash=None)))
    codex = [meta,
             item(1, type='message', role='user', content=7), item(2, type='local_shell_call', action='ls')]
    write_jsonl(tmp_path / 'x' / 'rollout.jsonl', codex)
    claude, codex = load_project(tmp_path / 'c'), load_project(tmp_path / 'x')
    texts = [c.text for p in (claude, codex) for c in chunk_project(p)]
    assert 'numeric timestamp' in texts[0]
    assert "Tool: local_shell \"ls\"" in texts[1] and '(session) cwd /x' in texts[1]
    summary = claude.warnings.summary()
    assert "1 unknown record type None (first at line 3)" in summary                # the list-valued type
    assert "1 timestamp that is not a string (first at line 2)" in summary and 'unreadable' not in summary

def test_a_symlink_loop_is_walked_once_and_said(tmp_path):
    import os, shutil
    shutil.copytree(FIXTURES / 'transcripts', tmp_path / 'p')
    os.symlink(tmp_path / 'p', tmp_path / 'p' / 'again')
    p = load_project(tmp_path / 'p')
    assert len(p.sessions) == 4
    assert f"warning: {tmp_path / 'p' / 'again'}: folder seen before (a symlink loop)" in p.warnings.summary()
