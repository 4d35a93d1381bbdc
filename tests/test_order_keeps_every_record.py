"""Reading a Claude Code session in the order its links give (issue 27: sub-agents after their calls, rewinds noted,
sessions apart) moves records, never loses or repeats one: on any tangle of links, every line is read exactly once."""
import json
from collections import Counter
from hypothesis import HealthCheck, given, settings, strategies as st
from memgate.projects import load_project
from memgate.domain import Role
from memgate.sources import session_records

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
