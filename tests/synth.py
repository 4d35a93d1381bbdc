"Small synthetic session files for the layouts the real fixtures do not cover, built from the documented formats."
import json
from pathlib import Path

def write_jsonl(path: Path, rows, tail: bytes = b''):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b''.join(json.dumps(r).encode() + b'\n' for r in rows) + tail)
    return path

def cc(kind, ts, content=None, sid='S1', cwd='/home/dev/shop', **extra):
    "A Claude Code line."
    row = dict(type=kind, timestamp=ts, sessionId=sid, cwd=cwd, uuid=f'u-{ts}', parentUuid=None, **extra)
    if content is not None: row['message'] = dict(role='assistant' if kind == 'assistant' else 'user', content=content)
    return row

def claude_21_session(root: Path):
    "A 2.1.x session: main file, a sub-agent under <sid>/subagents/, progress, a compaction."
    proj = root / 'projects' / '-home-dev-shop'
    write_jsonl(proj / 'S1.jsonl', [
        cc('user', '2026-01-01T10:00:00.000Z', 'deploy the shop'),
        cc('assistant', '2026-01-01T10:00:01.000Z',
           [dict(type='tool_use', id='t1', name='Task', input=dict(prompt='check CI'))], message_id='m1'),
        dict(type='progress', timestamp='2026-01-01T10:00:02.000Z',
             data=dict(type='agent_progress', message='copy of sub-agent text')),
        cc('user', '2026-01-01T10:00:09.000Z',
           [dict(type='tool_result', tool_use_id='t1',
                 content=[dict(type='text', text='CI is red: missing DATABASE_URL')])],
           toolUseResult=dict(content='CI is red: missing DATABASE_URL')),
        dict(cc('system', '2026-01-01T10:00:10.000Z', subtype='compact_boundary'), content='Conversation compacted'),
        cc('user', '2026-01-01T10:00:11.000Z', 'Summary: the user is deploying the shop.', isCompactSummary=True),
        cc('system', '2026-01-01T10:00:12.000Z', subtype='turn_duration', durationMs=5),
        cc('user', '2026-01-01T10:00:13.000Z', '<system-reminder>be brief</system-reminder>'),
    ])
    write_jsonl(proj / 'S1' / 'subagents' / 'agent-a1.jsonl', [
        cc('user', '2026-01-01T10:00:03.000Z', 'check CI', isSidechain=True, agentId='a1'),
        cc('assistant', '2026-01-01T10:00:04.000Z', [dict(type='text', text='CI fails on a missing env var')],
           isSidechain=True, agentId='a1'),
    ])
    return proj

def claude_20_session(root: Path):
    "A 2.0.x session with a flat agent file beside it."
    proj = root / 'projects' / '-home-dev-api'
    write_jsonl(proj / 'S2.jsonl',
                [cc('user', '2026-02-01T09:00:00.000Z', 'why is the api slow?', sid='S2', cwd='/home/dev/api'),
                                    cc('assistant', '2026-02-01T09:00:05.000Z', [dict(type='text', text='N+1 queries')],
                                       sid='S2', cwd='/home/dev/api')])
    write_jsonl(proj / 'agent-b2.jsonl',
                [cc('assistant', '2026-02-01T09:00:02.000Z', [dict(type='text', text='profiling')], sid='S2',
                    cwd='/home/dev/api', isSidechain=True)])
    return proj

def codex_session(root: Path):
    "A Codex rollout with custom tool calls, a compaction and UI replay events."
    f = root / 'sessions' / '2026' / '03' / '01' / 'rollout-2026-03-01T08-00-00-0000.jsonl'
    ri = lambda ts, **p: dict(timestamp=ts, type='response_item', payload=p)
    return write_jsonl(f, [
        dict(timestamp='2026-03-01T08:00:00.000Z', type='session_meta',
             payload=dict(id='x', cwd='/home/dev/shop', cli_version='0.60.0',
                          git=dict(branch='main', commit_hash='abcdef1234567890'))),
        ri('2026-03-01T08:00:00.100Z', type='message', role='developer',
           content=[dict(type='input_text', text='You are Codex.')]),
        ri('2026-03-01T08:00:00.200Z', type='message', role='user',
           content=[dict(type='input_text',
                         text='<environment_context><cwd>/home/dev/shop</cwd></environment_context>')]),
        ri('2026-03-01T08:00:01.000Z', type='message', role='user',
           content=[dict(type='input_text', text='apply the patch'),
                    dict(type='input_image', image_url='data:image/png;base64,' + 'A' * 4000)]),
        dict(timestamp='2026-03-01T08:00:01.000Z', type='event_msg',
             payload=dict(type='user_message', message='apply the patch')),
        ri('2026-03-01T08:00:02.000Z', type='reasoning', summary=[dict(type='summary_text', text='**Patching**')],
           encrypted_content='B' * 2000),
        ri('2026-03-01T08:00:03.000Z', type='custom_tool_call', name='apply_patch', input='*** Begin Patch',
           call_id='c1'),
        ri('2026-03-01T08:00:04.000Z', type='custom_tool_call_output', output='Done!', call_id='c1'),
        dict(timestamp='2026-03-01T08:00:05.000Z', type='compacted',
             payload=dict(message='Summary of the session so far')),
        dict(timestamp='2026-03-01T08:00:06.000Z', type='turn_context', payload=dict(cwd='/home/dev/shop')),
    ])

CAUSES = ('disk full on the build host', 'expired TLS certificate', 'OOM kill of the worker',
          'DNS timeout to the registry', 'port 5432 already in use', 'a missing DATABASE_URL', 'a stale lock file',
          'rate limit from the package mirror')
FIXES = ('pruned old images', 'renewed the certificate', 'raised the memory limit', 'pinned the resolver',
         'stopped the stray postgres', 'added the variable to .env', 'removed the lock', 'added a retry with backoff')

def incident(i: int) -> str:
    "The line planted for incident `i`: its unique id, a cause and a fix."
    return f"INC-{i:04d}: {CAUSES[i % len(CAUSES)]} (host h{i % 13}); fix: {FIXES[(i * 3) % len(FIXES)]}"

def incident_session(proj: Path, sid: str, start, ids, filler: int = 2):
    "A Claude Code session of `proj` starting at datetime `start`: each incident of `ids` found, with log noise."
    from datetime import timedelta
    at = lambda s: (start + timedelta(seconds=s)).strftime('%Y-%m-%dT%H:%M:%S.000Z')
    rows, s = [cc('user', at(0), 'keep the services up and note what broke', sid=sid)], 1
    for i in ids:
        for k in range(filler):
            rows.append(cc('user', at(s), [dict(type='tool_result', tool_use_id=f't{i}-{k}', content='\n'.join(
                f"{at(s)} worker[{n}] heartbeat ok queue={n * 7 % 31} latency={n % 9}ms" for n in range(40)))],
                sid=sid))
            s += 1
        rows.append(cc('assistant', at(s), [dict(type='text', text=f"Found the failure. {incident(i)}.")], sid=sid))
        s += 1
    return write_jsonl(proj / f'{sid}.jsonl', rows)

def incident_project(root: Path, months: int = 12, incidents: int = 240, per_session: int = 2, filler: int = 2,
                     year: int = 2026) -> Path:
    "A Claude Code project over `months` months whose sessions hold `incidents` planted incidents, spread evenly."
    from datetime import datetime, timezone
    proj = root / 'projects' / '-home-dev-ops'
    sessions = -(-incidents // per_session)
    for k in range(sessions):
        month = 1 + k * months // sessions
        day = 1 + (k * 11) % 27
        start = datetime(year, month, day, 9 + k % 8, 0, tzinfo=timezone.utc)
        ids = range(k * per_session, min(incidents, (k + 1) * per_session))
        incident_session(proj, f'S{k:04d}', start, ids, filler)
    return proj
