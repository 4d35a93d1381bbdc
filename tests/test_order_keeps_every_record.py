"""Reading a Claude Code session in the order its links give (issue 27: sub-agents after their calls, rewinds noted,
sessions apart) moves records, never loses or repeats one: on any tangle of links, every line is read exactly once."""
import json
from collections import Counter
from hypothesis import HealthCheck, given, settings, strategies as st
from memgate.projects import load_project
from memgate.domain import Role
from memgate.sessions import session_records

WORDS = ['check CI', 'fix the build', 'CI is red', 'done']     # few, so that prompts and reports repeat verbatim

@st.composite
def tangled_session(draw):
    "Lines of one file: main and sidechain turns, Task calls and results, agent ids, two sessions, random parents."
    rows, calls = [], []
    for i in range(draw(st.integers(1, 24))):
        kind = draw(st.sampled_from(['user', 'assistant']))
        text = draw(st.sampled_from(WORDS))
        content = [dict(type='text', text=text)]
        extra = {}
        if kind == 'assistant' and draw(st.booleans()):
            calls.append(f'toolu_{i}')
            content = [dict(type='tool_use', id=calls[-1], name=draw(st.sampled_from(['Task', 'Agent', 'Bash'])),
                            input=dict(subagent_type=draw(st.sampled_from(['Explore', 'general-purpose'])),
                                       prompt=text))]
        elif kind == 'user' and calls and draw(st.booleans()):
            content = [dict(type='tool_result', tool_use_id=draw(st.sampled_from(calls)), content=text)]
            if draw(st.booleans()): extra['toolUseResult'] = dict(agentId=draw(st.sampled_from(['a1', 'a2'])))
        if draw(st.booleans()): extra['isSidechain'] = True
        if draw(st.booleans()): extra['agentId'] = draw(st.sampled_from(['a1', 'a2']))
        parent = draw(st.sampled_from([None] + [r['uuid'] for r in rows]))
        rows.append(dict(type=kind, uuid=f'u{i}', parentUuid=parent, sessionId=draw(st.sampled_from(['s1', 's2'])),
                         cwd='/w', timestamp=f'2026-03-01T10:00:{draw(st.integers(0, 59)):02d}Z',
                         message=dict(role=kind, content=content), **extra))
    return rows

NOTE = (' rewound', ' rewind', ' session')      # the refs of the notes the order adds

@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tangled_session())
def test_every_line_of_a_tangled_session_is_read_exactly_once(tmp_path_factory, rows):
    d = tmp_path_factory.mktemp('s')
    (d / 's1.jsonl').write_text(''.join(json.dumps(r) + '\n' for r in rows))
    project = load_project(d)
    recs = [r for s in project.sessions for r in session_records(s, project.warnings)]
    read = Counter(r.ref for r in recs if not r.ref.endswith(NOTE))
    assert read == Counter(r['uuid'] for r in rows), (read, [r['uuid'] for r in rows])
    assert project.warnings.total == 0
    # whose words they are: a sub-agent's never the person's, the person's never a sub-agent's
    row = {r['uuid']: r for r in rows}
    for r in recs:
        if r.ref.endswith(NOTE): continue
        typed = row[r.ref]['type'] == 'user' and row[r.ref]['message']['content'][0]['type'] == 'text'
        if row[r.ref].get('isSidechain'): assert r.agent and r.render().startswith('[Agent'), r.render()
        else: assert not r.agent and (r.role == Role.user) == typed, (r.render(), row[r.ref])

SAID = ['Review the parser and fix bugs.', 'check the tokenizer', 'done', 'Use uv.']   # few: forks say them too

def codex_line(s: int, kind: str, payload: dict, **kw) -> dict:
    return dict(timestamp=f'2026-05-01T10:{s // 60:02d}:{s % 60:02d}.000Z', type=kind, payload=payload, **kw)

def codex_said(role: str, text: str) -> dict:
    return dict(type='message', role=role, content=[dict(type='input_text' if role == 'user' else 'output_text',
                                                         text=text)])

@st.composite
def forked_rollouts(draw):
    """A parent rollout and a sub-agent's: after its head, the copy Codex puts first (the parent's messages before
    the fork, its session_meta maybe), then its own words, drawn from the same few; ordinals or none."""
    said = st.tuples(st.sampled_from(['user', 'assistant']), st.sampled_from(SAID))
    parent_items = draw(st.lists(said, min_size=1, max_size=8))
    k = draw(st.integers(0, len(parent_items)))
    head = dict(id='p-1', cwd='/w', cli_version='0.155.0')
    parent = [codex_line(0, 'session_meta', head)] + [codex_line(i, 'response_item', codex_said(*x))
                                                       for i, x in enumerate(parent_items, 1)]
    copy = ([codex_line(k, 'session_meta', head)] if draw(st.booleans()) else []) + \
        [codex_line(k, 'response_item', codex_said(*x)) for x in parent_items[:k] if draw(st.booleans())]
    own = [codex_line(k + 1 + i, 'response_item', codex_said(*x))
           for i, x in enumerate(draw(st.lists(said, max_size=5)))]
    ordinal = draw(st.booleans())
    meta = dict(id='c-1', cwd='/w', source=dict(subagent=dict(thread_spawn=dict(parent_thread_id='p-1'))),
                **(dict(subagent_history_start_ordinal=1 + len(copy)) if ordinal else {}))
    # it began after the parent's k-th item
    child = [dict(codex_line(k, 'session_meta', meta), timestamp=f'2026-05-01T10:00:{k:02d}.500Z')] + copy + own
    if ordinal: child = [dict(row, ordinal=i) for i, row in enumerate(child)]
    return parent, child, len(copy), ordinal, k

@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(forked_rollouts())
def test_a_codex_fork_loses_no_words_and_repeats_none_of_its_parents(tmp_path_factory, rollouts):
    "A sub-agent's record is left out only as a copy of its parent's: in its leading copy, its words the parent's."
    parent, child, copied, ordinal, k = rollouts
    d = tmp_path_factory.mktemp('fork')
    for name, rows in (('rollout-p-1.jsonl', parent), ('rollout-c-1.jsonl', child)):
        (d / 'both' / name).parent.mkdir(exist_ok=True)
        (d / 'both' / name).write_text(''.join(json.dumps(r) + '\n' for r in rows))
    (d / 'alone').mkdir()
    (d / 'alone' / 'rollout-c-1.jsonl').write_text(''.join(json.dumps(r) + '\n' for r in child))
    both, alone = load_project(d / 'both'), load_project(d / 'alone')
    recs = [r for s in both.sessions for r in session_records(s, both.warnings)]
    mine = session_records(alone.sessions[0], alone.warnings)          # the sub-agent's file read whole
    assert len(both.sessions) == 1 and both.warnings.total == 0 and len(mine) == len(child)
    theirs = [r for r in recs if r.source.endswith('p-1.jsonl')]
    assert [r.ref for r in theirs] == [f'line {n}' for n in range(1, len(parent) + 1)]    # each once, in order
    kept = {r.ref for r in recs if r.source.endswith('c-1.jsonl')}
    left = [r for r in mine if r.ref not in kept]
    # only a leading run after its head, each a record its parent held when the sub-agent began
    assert [r.ref for r in left] == [f'line {n}' for n in range(2, 2 + len(left))]
    assert all(any((p.role, p.text) == (r.role, r.text) for p in theirs[:k + 1]) for r in left), left
    if ordinal: assert len(left) == copied
    # its own records, together, after the parent's turn that began it: its k-th item, line k + 1
    at = [i for i, r in enumerate(recs) if r.source.endswith('c-1.jsonl')]
    assert at == list(range(k + 1, k + 1 + len(at))), (k, [r.render() for r in recs])
