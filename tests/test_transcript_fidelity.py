"""What the model reads is what happened (issue 27): each way a real transcript was misread, on a small file shaped as
the format really is, read as what it is."""
import json
from synth import write_jsonl
from memgate.sessions import session_records
from memgate.projects import load_project

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
    assert project.warnings.summary() == '1 file, 5 records, 0 warnings; skipped 2 state'

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

def line(kind, ts, content, uuid, parent=None, **kw):
    "A Claude Code line with its links, as 1.x and 2.x files write them."
    return {**claude(kind, ts, content), 'uuid': uuid, 'parentUuid': parent, **kw}

def task(uuid, parent, ts, call, what, prompt):
    return line('assistant', ts, [dict(type='tool_use', id=call, name='Task', input=dict(
        subagent_type=what, description=prompt[:20], prompt=prompt))], uuid, parent)

def result(uuid, parent, ts, call, text, **kw):
    return line('user', ts, [dict(tool_use_id=call, type='tool_result', content=[dict(type='text', text=text)])],
                uuid, parent, **kw)

def side(kind, ts, content, uuid, parent=None, **kw):
    return line(kind, ts, content, uuid, parent, isSidechain=True, **kw)

def test_inline_sub_agents_are_tagged_placed_after_their_calls_and_their_report_is_not_read_twice(tmp_path):
    t = lambda s: f'2025-09-03T00:52:{s:02d}.000Z'
    said = lambda text: [dict(type='text', text=text)]
    write_jsonl(tmp_path / 'p' / 's1.jsonl', [       # 1.x: two agents at once, their turns interleaved by time
        line('user', t(0), 'create the TODO app', 'u1'),
        task('a1', 'u1', t(1), 'toolu_A', 'general-purpose', 'Set up the Next.js project'),
        task('a2', 'a1', t(2), 'toolu_B', 'Explore', 'List the components to build'),
        side('user', t(3), 'Set up the Next.js project', 'sa1'),
        side('user', t(3), 'List the components to build', 'sb1'),
        side('assistant', t(4), [dict(type='tool_use', id='toolu_s1', name='Bash',
                                      input=dict(command='npx create-next-app todo'))], 'sa2', 'sa1'),
        side('assistant', t(5), said('TodoItem, TodoList, AddTodo.'), 'sb2', 'sb1'),
        side('user', t(6), [dict(tool_use_id='toolu_s1', type='tool_result',
                                 content='Need to install create-next-app')], 'sa3', 'sa2'),
        side('assistant', t(7), said('The project is set up in todo/.'), 'sa4', 'sa3'),
        result('r2', 'a2', t(8), 'toolu_B', 'TodoItem, TodoList, AddTodo.'),
        result('r1', 'r2', t(9), 'toolu_A', 'The project is set up in todo/.'),
        line('assistant', t(10), said('Both agents are done.'), 'a3', 'r1'),
    ])
    got = texts(tmp_path / 'p')
    call = lambda what, prompt: (f'[Assistant] Tool: Task\n  subagent_type: {what}\n  description: {prompt[:20]}\n'
                                 f'  prompt: {prompt}')
    assert got == [
        '[User] create the TODO app',
        call('general-purpose', 'Set up the Next.js project'),
        '[Agent task: general-purpose] (the prompt of the call above)',
        '[Agent: general-purpose] Tool: Bash\n  command: npx create-next-app todo',
        '[Agent ToolResult: general-purpose] Need to install create-next-app',
        '[Agent: general-purpose] The project is set up in todo/.',
        call('Explore', 'List the components to build'),
        '[Agent task: Explore] (the prompt of the call above)',
        '[Agent: Explore] TodoItem, TodoList, AddTodo.',
        "[ToolResult] (agent Explore's last message, above)",
        "[ToolResult] (agent general-purpose's last message, above)",
        '[Assistant] Both agents are done.'], got

def test_a_sub_agents_own_file_is_placed_by_the_agent_id_its_calls_result_names(tmp_path):
    t = lambda s: f'2026-01-10T09:00:{s:02d}.000Z'
    report = 'The flaky test waits on a port that is never freed.'
    write_jsonl(tmp_path / 'p' / 's1.jsonl', [                # 2.1: the agent's turns in subagents/agent-<id>.jsonl
        line('user', t(0), 'why is test_server flaky?', 'u1'),
        task('a1', 'u1', t(1), 'toolu_A', 'Explore', 'Find why test_server is flaky'),
        line('assistant', t(2), [dict(type='text', text='Meanwhile I will read the CI config.')], 'a2', 'a1'),
        result('r1', 'a2', t(9), 'toolu_A', f'{report}\nagentId: a5f3c1 (for resuming)',
               toolUseResult=dict(status='completed', agentId='a5f3c1', prompt='Find why test_server is flaky')),
    ])
    write_jsonl(tmp_path / 'p' / 's1' / 'subagents' / 'agent-a5f3c1.jsonl', [
        side('user', t(1), 'Find why test_server is flaky', 'x1', agentId='a5f3c1'),
        side('assistant', t(3), [dict(type='text', text=report)], 'x2', 'x1', agentId='a5f3c1'),
    ])
    assert texts(tmp_path / 'p')[2:] == [
        '[Agent task: Explore] (the prompt of the call above)', f'[Agent: Explore] {report}',
        '[Assistant] Meanwhile I will read the CI config.',
        "[ToolResult] (agent Explore's last message, above)\nagentId: a5f3c1 (for resuming)"]

def test_a_rewound_attempt_is_noted_where_it_stands_and_a_run_that_read_it_before_finds_it_unchanged(tmp_path):
    t = lambda s: f'2026-02-01T12:00:{s:02d}.000Z'
    said = lambda text: [dict(type='text', text=text)]
    before = [
        line('user', t(0), 'fix the flaky test', 'u1'),
        line('assistant', t(1), said('It times out waiting for the database.'), 'a1', 'u1'),
        line('user', t(2), 'raise the timeout to 30 s', 'u2', 'a1'),                     # the attempt left
        line('assistant', t(3), said('Raised it; it still fails: the container never starts.'), 'a2', 'u2'),
    ]
    write_jsonl(tmp_path / 'p' / 's1.jsonl', before)
    read_before = texts(tmp_path / 'p')
    write_jsonl(tmp_path / 'p' / 's1.jsonl', [
        *before,
        line('user', t(4), 'find why the container does not start', 'u3', 'a1'),       # the retry, from a1
        line('assistant', t(5), said('Port 5432 was taken by a stale container; removed it.'), 'a3', 'u3'),
    ])
    got = texts(tmp_path / 'p')
    assert got == [
        '[User] fix the flaky test', '[Assistant] It times out waiting for the database.',
        '[System] (rewound: from here to the next note, an attempt the person went back on and left)',
        '[User] raise the timeout to 30 s',
        '[Assistant] Raised it; it still fails: the container never starts.',
        '[System] (the person rewound the conversation to before the attempt noted above, and went on from here)',
        '[User] find why the container does not start',
        '[Assistant] Port 5432 was taken by a stale container; removed it.'], got
    assert [x for x in got if x in read_before] == read_before        # what a run read before: unchanged, in order

def test_two_sessions_in_one_file_are_read_as_two_each_in_its_own_order(tmp_path):
    said = lambda text: [dict(type='text', text=text)]
    write_jsonl(tmp_path / 'p' / 's1.jsonl', [
        line('user', '2026-02-02T10:00:00.000Z', 'deploy to staging', 'u1'),
        line('assistant', '2026-02-02T10:00:05.000Z', said('Deployed.'), 'a1', 'u1'),
        {**line('user', '2026-02-01T08:00:00.000Z', 'set up the staging cluster', 'v1'), 'sessionId': 's0'},
        {**line('assistant', '2026-02-01T08:00:09.000Z', said('Cluster is up.'), 'v2', 'v1'), 'sessionId': 's0'},
    ])
    project = load_project(tmp_path / 'p')
    assert project.sessions[0].first_ts == '2026-02-02T10:00:00.000Z'
    assert texts(tmp_path / 'p') == ['[User] deploy to staging', '[Assistant] Deployed.',
                                     '[System] (another session in the same file: s0)',
                                     '[User] set up the staging cluster', '[Assistant] Cluster is up.']

def test_what_is_omitted_says_its_true_size(tmp_path):
    ts = '2025-10-29T00:59:00.000Z'
    write_jsonl(tmp_path / 'p' / 'rollout-d.jsonl', [
        dict(timestamp=ts, type='session_meta', payload=dict(id='d', cwd='/w', cli_version='0.46.0')),
        dict(timestamp=ts, type='response_item', payload=dict(type='reasoning', summary=[],
                                                               encrypted_content='gAAAAABo' + 'x' * 35)),
    ])
    assert texts(tmp_path / 'p')[1:] == ['[Assistant] (reasoning) \n[encrypted reasoning omitted, 32 bytes]']

def test_a_call_id_of_another_type_is_no_call_id_and_no_crash(tmp_path):
    "A tool_use `id` or a `tool_use_id` that is a list (found by test_any_input in CI) ties nothing to anything."
    base = dict(sessionId='s1', cwd='/w', version='1.0.98', timestamp='2025-09-03T00:52:31Z')
    write_jsonl(tmp_path / 's1.jsonl', [
        dict(base, type='user', uuid='u1', parentUuid=None, message=dict(role='user', content='run the tests')),
        dict(base, type='assistant', uuid='a1', parentUuid='u1', message=dict(role='assistant', content=[
            dict(type='tool_use', id=['toolu_1'], name='Bash', input=dict(command='pytest'))])),
        dict(base, type='user', uuid='r1', parentUuid='a1', message=dict(role='user', content=[
            dict(type='tool_result', tool_use_id=[], content='2 failed')]))])
    project = load_project(tmp_path)
    recs = session_records(project.sessions[0], project.warnings)
    assert [(r.render(), r.call_id) for r in recs] == [('[User] run the tests', None),
                                                      ('[Assistant] Tool: Bash\n  command: pytest', None),
                                                      ('[ToolResult] 2 failed', None)], recs

def test_a_name_or_type_that_is_a_list_is_unknown_not_a_crash(tmp_path):
    "A tool_use `name`, a content block `type`, a Codex line's or item's `type` that is a list (test_any_input)."
    base = dict(sessionId='s1', cwd='/w', version='2.0.27', timestamp='2025-09-03T00:52:31Z')
    write_jsonl(tmp_path / 'c' / 's1.jsonl', [
        dict(base, type='user', uuid='u1', parentUuid=None, message=dict(role='user', content='go')),
        dict(base, type='assistant', uuid='a1', parentUuid='u1', message=dict(role='assistant', content=[
            dict(type='tool_use', id='t1', name=[], input=dict(pattern='*.ts')), dict(type=['text'], text='x')]))])
    meta = dict(timestamp='2025-09-25T02:12:23Z', type='session_meta', payload=dict(id='r1', cwd='/w'))
    write_jsonl(tmp_path / 'x' / 'rollout-2025-09-25T02-12-23-r1.jsonl', [
        meta, dict(timestamp='2025-09-25T02:12:24Z', type=['response_item'], payload={}),
        dict(timestamp='2025-09-25T02:12:25Z', type='response_item', payload=dict(type=['message'])),
        dict(timestamp='2025-09-25T02:12:26Z', type='event_msg', payload=dict(type=[], message='hi'))])
    claude, codex = texts(tmp_path / 'c'), texts(tmp_path / 'x')
    assert claude == ['[User] go', '[Assistant] Tool: []\n  pattern: *.ts'], claude
    assert codex == ['[System] (session) cwd /w'], codex
    project = load_project(tmp_path / 'c')
    for s in project.sessions: session_records(s, project.warnings)
    assert "unknown content block ['text']" in project.warnings.summary(), project.warnings.summary()

def test_issue_38_a_message_only_its_queue_removal_holds_is_the_persons_in_place_and_once(tmp_path):
    "Claude Code removes a message absorbed mid-turn from its queue with its words (`remove`, `content`)."
    absorbed = dict(queue('2026-03-01T10:00:07.000Z', 'remove', 'actually — focus on the parser first'),
                    reason='absorbed_mid_turn')
    write_jsonl(tmp_path / 'p' / 's1.jsonl', [
        claude('user', '2026-03-01T10:00:00.000Z', 'fix the failing build'),
        absorbed,
        claude('assistant', '2026-03-01T10:00:09.000Z', [dict(type='text', text='Understood - parser first.')]),
        queue('2026-03-01T10:00:20.000Z', 'enqueue', 'and add a test'),
        queue('2026-03-01T10:00:21.000Z', 'remove', 'and add a test'),        # its enqueue holds it: once
        queue('2026-03-01T10:00:22.000Z', 'remove'),                          # no words: bookkeeping
        queue('2026-03-01T10:00:30.000Z', 'enqueue', 'continue'),
        queue('2026-03-01T10:00:40.000Z', 'enqueue', 'continue'),             # typed twice: said twice
    ])
    assert texts(tmp_path / 'p') == [
        '[User] fix the failing build', '[User] (typed while the agent worked) actually — focus on the parser first',
        '[Assistant] Understood - parser first.', '[User] (typed while the agent worked) and add a test',
        '[User] (typed while the agent worked) continue', '[User] (typed while the agent worked) continue']

def test_issue_38_notifications_ide_context_and_teammates_are_not_the_persons_words(tmp_path):
    note = '<task-notification><task-id>b7</task-id><status>completed</status></task-notification>'
    write_jsonl(tmp_path / 'p' / 's1.jsonl', [
        claude('user', '2026-03-01T10:00:00.000Z', 'run the tests in the background'),
        dict(claude('user', '2026-03-01T10:00:01.000Z', note), origin=dict(kind='task-notification')),
        queue('2026-03-01T10:00:02.000Z', 'enqueue', note),
        claude('user', '2026-03-01T10:00:03.000Z', '<ide_opened_file>The user opened src/app.py</ide_opened_file>'),
        claude('user', '2026-03-01T10:00:04.000Z',
               '<teammate-message teammate_id="t2">I took the parser</teammate-message>'),
    ])
    got = texts(tmp_path / 'p')
    assert got[0] == '[User] run the tests in the background'
    assert [g.split(' ', 1)[0] for g in got[1:]] == ['[System]'] * 4, got

def test_issue_38_newer_claude_state_records_are_bookkeeping_counted_without_a_warning(tmp_path):
    write_jsonl(tmp_path / 'p' / 's1.jsonl', [
        claude('user', '2026-03-01T10:00:00.000Z', 'hello'),
        *[dict(type=t, timestamp='2026-03-01T10:00:01.000Z', sessionId='S1') for t in
          ('agent-name', 'worktree-state', 'pr-link', 'fork-context-ref')]])
    project = load_project(tmp_path / 'p')
    got = [r.render() for s in project.sessions for r in session_records(s, project.warnings)]
    report = project.warnings.report(tmp_path / 'p' / 's1.jsonl')
    assert got == ['[User] hello'] and not report.warnings
    assert {k: report.skipped[k] for k in ('agent-name', 'worktree-state', 'pr-link', 'fork-context-ref')} == \
        dict.fromkeys(('agent-name', 'worktree-state', 'pr-link', 'fork-context-ref'), 1)

def test_issue_38_a_codex_agents_md_preamble_is_harness_text_not_the_person(tmp_path):
    ts = '2026-03-01T10:00:00.000Z'
    pre = '# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\nUse uv.\n</INSTRUCTIONS>'
    write_jsonl(tmp_path / 'p' / 'rollout-2026-03-01T10-00-00-5f8c0d3e-1b2a-4c5d-9e8f-0a1b2c3d4e5f.jsonl', [
        dict(timestamp=ts, type='session_meta', payload=dict(id='5f8c0d3e-1b2a-4c5d-9e8f-0a1b2c3d4e5f', timestamp=ts,
                                                             cwd='/w', cli_version='0.155.0')),
        *[dict(timestamp=ts, type='response_item', payload=dict(type='message', role='user',
                                                                 content=[dict(type='input_text', text=t)]))
          for t in (pre, 'fix the lockfile')]])
    got = texts(tmp_path / 'p')
    assert got[1].startswith('[System] # AGENTS.md instructions for /w') and got[2] == '[User] fix the lockfile', got

def rollout(sid: str, items: list, meta: dict | None = None) -> list[dict]:
    "A Codex rollout's lines: its session_meta (with `meta`), then `items` as response_items, a second apart."
    ts = lambda s: f'2026-05-01T10:00:{s:02d}.000Z'
    head = dict(timestamp=ts(0), type='session_meta', payload=dict(id=sid, timestamp=ts(0), cwd='/w',
                                                                   cli_version='0.155.0', **(meta or {})))
    return [head, *[dict(timestamp=ts(i), type=item.pop('line', 'response_item'), payload=item)
                     for i, item in enumerate(items, 1)]]

def test_a_codex_sub_agent_rollout_is_read_as_the_sub_agents_after_its_parent_began(tmp_path):
    parent = rollout('p-1', [
        dict(type='message', role='user', content=[dict(type='input_text', text='audit the payment flow')]),
        dict(type='function_call', name='spawn_agent', call_id='c1', arguments=json.dumps(dict(task='check refunds'))),
        dict(type='function_call_output', call_id='c1', output='agent Euler spawned'),
        dict(type='message', role='assistant', content=[dict(type='output_text', text='Euler found the bug')])])
    child = rollout('c-1', [
        # the task it was given, then its own words
        dict(type='message', role='user', content=[dict(type='input_text', text='check refunds')]),
        dict(type='message', role='assistant', content=[dict(type='output_text', text='refunds skip the ledger')])],
        meta=dict(source=dict(subagent=dict(thread_spawn=dict(parent_thread_id='p-1', depth=1,
                                                                 agent_nickname='Euler', agent_role='worker')))))
    write_jsonl(tmp_path / 'p' / 'rollout-2026-05-01T10-00-00-p-1.jsonl', parent)
    write_jsonl(tmp_path / 'p' / 'rollout-2026-05-01T10-00-00-c-1.jsonl', child)
    project = load_project(tmp_path / 'p')
    assert len(project.sessions) == 1 and len(project.sessions[0].agents) == 1      # one session, its sub-agent
    got = texts(tmp_path / 'p')
    assert '[Agent task: Euler] check refunds' in got and '[Agent: Euler] refunds skip the ledger' in got
    assert sum(t.startswith('[User]') for t in got) == 1, got                         # only the person's own
    assert any('a sub-agent (Euler) of session p-1' in t for t in got)
    # where it began: after the call that spawned it
    assert got.index('[Agent: Euler] refunds skip the ledger') < got.index('[Assistant] Euler found the bug')

PARENT_HEAD = dict(id='p-1', cwd='/w', cli_version='0.155.0')
SPAWN = dict(subagent=dict(thread_spawn=dict(parent_thread_id='p-1', depth=1, agent_nickname='Euler',
                                             agent_role='worker')))

def said(role: str, text: str) -> dict:
    "A Codex message item."
    return dict(type='message', role=role, content=[dict(type='input_text' if role == 'user' else 'output_text',
                                                         text=text)])

def spawn_and_fork(ordinal: bool) -> tuple[list[dict], list[dict]]:
    """A parent rollout whose turn spawns a forked sub-agent (`spawn_agent`, `fork_context`), and the sub-agent's
    rollout as Codex writes it: its session_meta, then the copy of its parent's history (the parent's session_meta
    and prompt), then its own task and answer. With `ordinal`, every line numbered and the head saying where the
    sub-agent's own lines begin (`subagent_history_start_ordinal`)."""
    line = lambda s, kind, payload: dict(timestamp=f'2026-05-01T10:00:{s:02d}.000Z', type=kind, payload=payload)
    parent = [line(0, 'session_meta', PARENT_HEAD),
              line(1, 'response_item', said('user', 'Review the parser and fix bugs.')),
              line(2, 'response_item', dict(type='function_call', name='spawn_agent', call_id='c1',
                                            arguments=json.dumps(dict(message='check the tokenizer',
                                                                      fork_context=True)))),
              line(4, 'response_item', dict(type='function_call_output', call_id='c1',
                                            output=json.dumps(dict(agent_id='c-1', nickname='Euler')))),
              line(5, 'response_item', said('assistant', 'While Euler reads the tokenizer, I fix the grammar.')),
              line(9, 'response_item', said('assistant', 'Fixed the grammar, and the tokenizer bug Euler found.'))]
    head = dict(id='c-1', cwd='/w', cli_version='0.155.0', source=SPAWN,
                **(dict(subagent_history_start_ordinal=3) if ordinal else {}))
    child = [line(3, 'session_meta', head),
             # the copy
             line(3, 'session_meta', PARENT_HEAD),
             line(3, 'response_item', said('user', 'Review the parser and fix bugs.')),
             # its own
             line(3, 'response_item', said('user', 'check the tokenizer')),
             line(6, 'response_item', said('assistant', 'The tokenizer drops the last token.'))]
    return parent, [dict(row, ordinal=i) for i, row in enumerate(child)] if ordinal else child

FORKED = [
    '[System] (session) cwd /w, codex 0.155.0',
    '[User] Review the parser and fix bugs.',
    '[Assistant] Tool: spawn_agent\n  message: check the tokenizer\n  fork_context: true',
    # the sub-agent's own records, after its parent's turn began it: its copy of that turn is not read again
    '[Agent System: Euler] (session) cwd /w, codex 0.155.0, a sub-agent (Euler) of session p-1',
    '[Agent task: Euler] check the tokenizer',
    '[Agent: Euler] The tokenizer drops the last token.',
    '[ToolResult] {"agent_id": "c-1", "nickname": "Euler"}',
    '[Assistant] While Euler reads the tokenizer, I fix the grammar.',
    '[Assistant] Fixed the grammar, and the tokenizer bug Euler found.']

def read_fork(folder, ordinal: bool):
    "The rendered records of a parent and its fork written to `folder`, and the fork file's report."
    parent, child = spawn_and_fork(ordinal=ordinal)
    write_jsonl(folder / 'rollout-2026-05-01T10-00-00-p-1.jsonl', parent)
    write_jsonl(folder / 'rollout-2026-05-01T10-00-03-c-1.jsonl', child)
    project = load_project(folder)
    got = [r.render() for s in project.sessions for r in session_records(s, project.warnings)]
    return got, project.warnings.report(folder / 'rollout-2026-05-01T10-00-03-c-1.jsonl')

def test_a_codex_fork_does_not_repeat_its_parents_history_told_by_subagent_history_start_ordinal(tmp_path):
    got, report = read_fork(tmp_path / 'p', ordinal=True)
    assert got == FORKED, got
    # the two lines of the copy are counted, not read
    assert (report.records, report.skipped['copied parent history']) == (3, 2), report

def test_a_codex_fork_without_the_ordinal_is_told_by_its_copied_records(tmp_path):
    got, report = read_fork(tmp_path / 'p', ordinal=False)
    assert got == FORKED, got
    assert (report.records, report.skipped['copied parent history']) == (3, 2), report

def test_a_codex_fork_whose_parent_is_not_there_keeps_every_record(tmp_path):
    for ordinal in (True, False):
        _, child = spawn_and_fork(ordinal)
        write_jsonl(tmp_path / str(ordinal) / 'rollout-2026-05-01T10-00-03-c-1.jsonl', child)
        got = texts(tmp_path / str(ordinal))
        # its copy is the only place the parent's history is read
        assert got == ['[System] (session) cwd /w, codex 0.155.0, a sub-agent (Euler) of session p-1',
                       '[System] (session) cwd /w, codex 0.155.0', '[User] Review the parser and fix bugs.',
                       '[User] check the tokenizer', '[Assistant] The tokenizer drops the last token.'], got

def test_a_codex_sub_agent_that_only_says_what_its_parent_said_is_no_copy(tmp_path):
    pre = '# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\nUse uv.\n</INSTRUCTIONS>'
    parent, child = spawn_and_fork(ordinal=False)
    parent.insert(1, dict(parent[1], payload=said('user', pre)))
    # not forked: its own preamble, the same words as its parent's, then words its parent said before it began
    child[1:3] = [dict(child[1], type='response_item', payload=said('user', pre)),
                  dict(child[2], payload=said('user', 'Review the parser and fix bugs.'))]
    write_jsonl(tmp_path / 'p' / 'rollout-2026-05-01T10-00-00-p-1.jsonl', parent)
    write_jsonl(tmp_path / 'p' / 'rollout-2026-05-01T10-00-03-c-1.jsonl', child)
    got = texts(tmp_path / 'p')
    assert got.count('[Agent System: Euler] ' + pre) == 1 and got.count('[System] ' + pre) == 1, got
    assert '[Agent task: Euler] Review the parser and fix bugs.' in got, got

def test_a_codex_forks_own_records_follow_its_parents_turn_whatever_its_clock_says(tmp_path):
    parent, child = spawn_and_fork(ordinal=True)
    # its session_meta stamped before its parent's prompt: its copy, which ends with that prompt, tells better
    child[0] = dict(child[0], timestamp='2026-05-01T10:00:00.500Z')
    write_jsonl(tmp_path / 'p' / 'rollout-2026-05-01T10-00-00-p-1.jsonl', parent)
    write_jsonl(tmp_path / 'p' / 'rollout-2026-05-01T10-00-03-c-1.jsonl', child)
    got = texts(tmp_path / 'p')
    assert got.index('[User] Review the parser and fix bugs.') < got.index('[Agent task: Euler] check the tokenizer')
    assert got.count('[User] Review the parser and fix bugs.') == 1 and len(got) == len(FORKED), got

def test_newer_codex_items_are_rendered_or_counted_never_warned(tmp_path):
    write_jsonl(tmp_path / 'p' / 'rollout-2026-05-01T10-00-00-s-1.jsonl', rollout('s-1', [
        dict(type='tool_search_call', call_id='t1', status='completed', execution='server',
             arguments=dict(query='calendar')),
        dict(type='tool_search_output', call_id='t1', status='completed', execution='server',
             tools=[dict(type='function', name='calendar_create_event')]),
        dict(type='image_generation_call', id='ig_1', status='completed', revised_prompt='a flow diagram',
             result='iVBORw0KGgo' * 20),
        dict(type='tool_call', name='lookup', call_id='g1', arguments=json.dumps(dict(sku='A-1'))),
        dict(type='tool_result', call_id='g1', output='in stock'),
        dict(type='agent_message', author='Euler', recipient='root', content=[dict(type='output_text', text='done')]),
        dict(type='compaction', encrypted_content='gAAAA'),
        dict(type='additional_tools', role='system', tools=[dict(name='extra')]),
        dict(line='inter_agent_communication', author='root', recipient='Euler', content='check refunds'),
        dict(line='world_state', state={}),
        dict(line='event_msg', type='mcp_tool_call_end', call_id='m1',
             invocation=dict(server='n8n', tool='health', arguments={}), result=dict(Ok={})),
    ]))
    project = load_project(tmp_path / 'p')
    got = [r.render() for s in project.sessions for r in session_records(s, project.warnings)]
    assert got[1:] == [
        '[Assistant] Tool: tool_search\n  query: calendar', '[ToolResult] (tools found) calendar_create_event',
        got[3], '[Assistant] Tool: lookup\n  sku: A-1', '[ToolResult] in stock',
        '[System] (message from Euler to root) done', '[System] (message from root to Euler) check refunds'], got
    assert got[3].startswith('[Assistant] (image generated) a flow diagram\n') and 'iVBORw0KGgo' * 3 not in got[3]
    assert project.warnings.summary() == ('1 file, 8 records, 0 warnings; skipped 1 additional_tools, 1 compaction, '
                                          '1 event_msg mcp_tool_call_end, 1 world_state'), project.warnings.summary()

def test_a_claude_tool_use_written_as_a_line_of_its_own_is_a_call(tmp_path):
    write_jsonl(tmp_path / 'p' / 's1.jsonl', [
        claude('user', '2026-03-01T10:00:00.000Z', 'check the health of n8n'),
        dict(type='tool_use', id='toolu_1', name='mcp__n8n-mcp__n8n_health_check', input=dict(verbose=True),
             timestamp='2026-03-01T10:00:01.000Z', sessionId='s1', uuid='u-t')])
    assert texts(tmp_path / 'p')[1] == '[Assistant] Tool: mcp__n8n-mcp__n8n_health_check\n  verbose: true'
