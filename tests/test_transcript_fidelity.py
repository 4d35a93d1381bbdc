"""What the model reads is what happened (issue 27): each way a real transcript was misread, on a small file shaped as
the format really is, read as what it is."""
import json
from synth import write_jsonl
from memgate.sources import load_project, session_records

LEGACY_META = {"id": "5f8c0d3e-1b2a-4c5d-9e8f-0a1b2c3d4e5f", "timestamp": "2025-04-18T09:12:44.120Z",
               "instructions": None, "git": {"commit_hash": "a1b2c3d4e5f60718", "branch": "main"}}
ITEMS = [   # what Codex CLI wrote before its rollouts had `session_meta` and `response_item` wrappers
    {"type": "message", "id": None, "role": "user",
     "content": [{"type": "input_text", "text": "the CI build fails on the lockfile, fix it"}]},
    {"type": "function_call", "id": "fc_1", "name": "shell", "call_id": "call_1",
     "arguments": json.dumps({"command": ["bash", "-lc", "npm ci"]})},
    {"type": "function_call_output", "call_id": "call_1",
     "output": json.dumps({"output": "npm ERR! lockfile out of date", "metadata": {"exit_code": 1}})},
    {"type": "message", "id": "msg_1", "role": "assistant",
     "content": [{"type": "output_text", "text": "The lockfile was stale; I regenerated it with npm install."}]},
]

def texts(folder) -> list[str]:
    project = load_project(folder)
    return [r.render() for s in project.sessions for r in session_records(s, project.warnings)]

def test_a_legacy_flat_codex_rollout_is_read_as_todays_rollouts_are(tmp_path):
    name = 'rollout-2025-04-18T09-12-44-5f8c0d3e-1b2a-4c5d-9e8f-0a1b2c3d4e5f.jsonl'
    write_jsonl(tmp_path / 'old' / name, [LEGACY_META, {"record_type": "state"}, *ITEMS[:2], {"record_type": "state"},
                                          *ITEMS[2:]])
    ts = LEGACY_META['timestamp']
    write_jsonl(tmp_path / 'new' / name, [
        dict(timestamp=ts, type='session_meta', payload=dict(id=LEGACY_META['id'], timestamp=ts, cwd='/w',
                                                             cli_version='0.40.0', git=LEGACY_META['git'])),
        *[dict(timestamp=ts, type='response_item', payload=item) for item in ITEMS]])
    old, new = texts(tmp_path / 'old'), texts(tmp_path / 'new')
    assert old[1:] == new[1:] and len(old) == 5, old                 # every item, rendered as today's are
    assert old[0] == '[System] (session) a rollout of the older format, git main a1b2c3d4e5f6', old[0]
    assert 'the CI build fails on the lockfile' in old[1] and 'npm ERR! lockfile out of date' in old[3]
    project = load_project(tmp_path / 'old')
    for s in project.sessions: session_records(s, project.warnings)
    assert project.sessions[0].first_ts == ts
    assert project.warnings.summary() == '1 files, 5 records, 0 warnings; skipped 2 state'

def claude(kind, ts, content, **kw):
    "A Claude Code 2.x line of `kind`, shaped as the files are."
    return dict(parentUuid=None, isSidechain=False, userType='external', cwd='/w', sessionId='s1', version='2.0.14',
                type=kind, message=dict(role=kind, content=content), uuid=f'u-{ts}', timestamp=ts, **kw)

def queue(ts, operation, content=None):
    return dict(type='queue-operation', operation=operation, timestamp=ts, sessionId='s1',
                **({'content': content} if content is not None else {}))

def test_words_typed_while_the_agent_worked_are_the_persons_in_place_and_not_twice(tmp_path):
    write_jsonl(tmp_path / 'p' / 's1.jsonl', [
        claude('user', '2026-03-01T10:00:00.000Z', 'fix the failing build'),
        claude('assistant', '2026-03-01T10:00:05.000Z', [dict(type='text', text='Looking at the build log now.')]),
        queue('2026-03-01T10:00:07.000Z', 'enqueue', 'actually - focus on the parser first'),
        queue('2026-03-01T10:00:08.000Z', 'dequeue'),
        claude('assistant', '2026-03-01T10:00:09.000Z', [dict(type='text', text='Understood - parser first.')]),
        queue('2026-03-01T10:00:20.000Z', 'enqueue', [dict(type='text', text='and add a test')]),
        claude('user', '2026-03-01T10:00:30.000Z', 'and add a test'),      # delivered later as a prompt: once only
    ])
    got = texts(tmp_path / 'p')
    assert got == ['[User] fix the failing build', '[Assistant] Looking at the build log now.',
                   '[User] (typed while the agent worked) actually - focus on the parser first',
                   '[Assistant] Understood - parser first.', '[User] and add a test'], got

def test_a_codex_message_only_an_event_holds_is_read_and_one_a_response_item_holds_is_not_read_twice(tmp_path):
    ts = lambda s: f'2025-10-29T00:59:{s:02d}.000Z'
    meta = dict(timestamp=ts(0), type='session_meta', payload=dict(id='019a2d7a', timestamp=ts(0), cwd='/w',
                                                                    cli_version='0.46.0'))
    said = dict(timestamp=ts(1), type='response_item', payload=dict(type='message', role='user', content=[
        dict(type='input_text', text='what is 2+2?')]))
    event = lambda s, kind, text: dict(timestamp=ts(s), type='event_msg', payload=dict(type=kind, message=text))
    answer = dict(timestamp=ts(3), type='response_item', payload=dict(type='message', role='assistant', content=[
        dict(type='output_text', text='4')]))
    write_jsonl(tmp_path / 'normal' / 'rollout-a.jsonl', [meta, said, event(1, 'user_message', 'what is 2+2?'),
                                                          dict(timestamp=ts(2), type='event_msg',
                                                               payload=dict(type='token_count', info=None)),
                                                          answer, event(3, 'agent_message', '4')])
    assert texts(tmp_path / 'normal')[1:] == ['[User] what is 2+2?', '[Assistant] 4']       # once each
    path = tmp_path / 'cut' / 'rollout-b.jsonl'                  # the response_item copy was the malformed line
    write_jsonl(path, [meta, event(1, 'user_message', 'deploy the fix to staging'), answer])
    path.write_text(path.read_text().replace('\n', '\n{"timestamp": "2025-10-29T00:59:01.000Z", "type": "resp\n', 1))
    assert texts(tmp_path / 'cut')[1:] == ['[User] deploy the fix to staging', '[Assistant] 4']

def test_a_system_reminder_inside_the_persons_text_is_the_harnesss_and_the_words_around_it_stay_the_persons(tmp_path):
    reminder = '<system-reminder>\nThe user opened the file src/parser.py in the IDE.\n</system-reminder>'
    write_jsonl(tmp_path / 'p' / 's1.jsonl', [
        claude('user', '2026-03-01T10:00:00.000Z', f'why does the parser fail?\n{reminder}\nsee the log'),
        claude('user', '2026-03-01T10:00:05.000Z', [dict(type='text', text=f'{reminder}\nand the tests too')]),
    ])
    assert texts(tmp_path / 'p') == ['[User] why does the parser fail?', f'[System] {reminder}', '[User] see the log',
                                     f'[System] {reminder}', '[User] and the tests too']

def test_codex_output_parts_are_their_text_and_an_apply_patch_body_is_a_block(tmp_path):
    ts = '2025-10-29T00:59:00.000Z'
    patch = '*** Begin Patch\n*** Update File: src/parser.py\n@@\n-    return None\n+    return tokens\n*** End Patch'
    write_jsonl(tmp_path / 'p' / 'rollout-c.jsonl', [
        dict(timestamp=ts, type='session_meta', payload=dict(id='c', cwd='/w', cli_version='0.46.0')),
        dict(timestamp=ts, type='response_item', payload=dict(type='custom_tool_call', name='apply_patch',
                                                               call_id='call_9', input=patch)),
        dict(timestamp=ts, type='response_item', payload=dict(type='custom_tool_call_output', call_id='call_9',
                                                               output=[dict(type='output_text', text='Done!')])),
        dict(timestamp=ts, type='response_item', payload=dict(type='function_call_output', call_id='call_8',
                                                               output=json.dumps([dict(type='output_text',
                                                                                       text='Success. 1 file')]))),
    ])
    got = texts(tmp_path / 'p')[1:]
    assert got[0] == '[Assistant] Tool: apply_patch\n' + '\n'.join(f'  {line}' for line in patch.split('\n')), got[0]
    assert got[1:] == ['[ToolResult] Done!', '[ToolResult] Success. 1 file'], got
