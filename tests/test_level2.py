"Periods at level 1 and their consolidation at level 2 (issue 39), against scripted models that remember incidents."
import asyncio, json, os, re, shlex, shutil, signal, subprocess, sys
import pytest
from datetime import datetime, timezone
from pathlib import Path
from conftest import FIXTURES, run
from helpers import clean_env, memgate
from synth import cc, incident, incident_project, incident_session, write_jsonl
from memgate.client import ScriptedClient
from memgate.consolidate import consolidate, period_chunk
from memgate.levels import LEVEL2_LOG, period_memories
from memgate.domain import Chunk
from memgate.log import read_log, verify
from memgate.loop import EventList, LoopConfig, run_loop
from memgate.queries import Query
from memgate.testing import FakeServer, incident_gate

Q = Query('incidents', 'Which incidents happened, with cause and fix?')
QUERIES = '[incidents]\nquestion = "Which incidents happened, with cause and fix?"\n'

def level_aware(prompt: str) -> str:
    "Level 1: every incident read goes into memory (the budget refuses what is over); level 2: merged within it."
    return incident_gate(prompt, 1024 if '[Memory of period ' in prompt else None)

def ingest(server, project, runs, *args):
    qf = Path(runs).parent / 'queries.toml'
    qf.write_text(QUERIES)
    command, args = ('consolidate', args[1:]) if args and args[0] == 'consolidate' else ('ingest', args)
    cmd = [sys.executable, '-m', 'memgate.cli', command, '--project', str(project), '--queries', str(qf),
           '--base-url', server.url, '--model', 'test-model', '--log-dir', str(runs), '--chunk-tokens', '1200', *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=clean_env())

def folder(runs): return Path(runs) / '-home-dev-ops' / 'incidents'
def events(path): return read_log(path).events
TIMING = {'run', 'ts', 'elapsed_s', 'latency_s', 'times', 'prev', 'seal', 'usage', 'queue_s', 'first_token_s',
          'decode_s'}
def turn_events(path):
    "The turn events of a log without run ids, times and the chain (which a second run makes differently)."
    return [{k: v for k, v in e.items() if k not in TIMING} for e in events(path)
            if e['kind'] not in ('run_start', 'run_end')]

def test_a10_a_level2_run_equals_a_level1_run_but_for_level_and_what_its_evidence_names(tmp_path):
    proj = incident_project(tmp_path / 'home', months=3, incidents=12)
    runs = tmp_path / 'runs'
    with FakeServer(gate=level_aware) as s:
        assert ingest(s, proj, runs, '--period', 'month').returncode == 0
    periods = period_memories(folder(runs))
    script = lambda: ScriptedClient([lambda m: incident_gate(m[-1]['content'], 1024)] * len(periods))
    r2 = run(consolidate(folder(runs), Q, LoopConfig(), script(), model='scripted', err=lambda m: None))
    l2 = [e for e in events(r2.log) if e['kind'] not in ('run_start', 'run_end')]
    # the same inputs at level 1: each period's memory as a plain chunk of text
    l1 = EventList()
    run(run_loop(1, Q, [Chunk.from_text(i, p.memory) for i, p in enumerate(periods, 1)], LoopConfig(), script(),
                 l1, model='scripted'))
    l1 = [e for e in l1 if e['kind'] not in ('run_start', 'run_end')]
    assert len(l1) == len(l2) and {e['kind'] for e in l2} >= {'gate', 'evidence', 'memory'}
    strip = lambda e, keep=(): {k: v for k, v in e.items() if k not in TIMING | {'level', 'read', 'source'}}
    for a, b in zip(l1, l2):
        assert strip(a) == strip(b)
        assert b['level'] == a['level'] + 1
        named = b.get('read') or b.get('source')
        if named: assert [x['period'] for x in named] and named[0]['memory'] == periods[b['t'] - 1].sha
    # lineage: a level-2 memory's first parent is the period memory it read
    mems = [e for e in l2 if e['kind'] == 'memory']
    assert mems[0]['parents'][0] == periods[0].sha and verify(r2.log, strict=True).ok
    # the seed's prompt is the same template at both levels: only the chunk shows its period
    assert period_chunk(1, periods[0]).text.endswith(periods[0].memory)

def test_periods_are_assigned_by_the_first_timestamp_in_the_zone_asked(tmp_path):
    proj = tmp_path / 'home' / 'projects' / '-home-dev-ops'
    # begins on the last evening of January (UTC) and runs into February; Tokyo's calendar says February
    write_jsonl(proj / 'late.jsonl', [cc('user', '2026-01-31T23:30:00.000Z', 'deploy', sid='late'),
                                     cc('assistant', '2026-02-01T01:00:00.000Z',
                                        [dict(type='text', text=f'{incident(1)}.')], sid='late')])
    incident_session(proj, 'mid', datetime(2026, 2, 10, 9, tzinfo=timezone.utc), [2])
    runs = tmp_path / 'runs'
    with FakeServer(gate=level_aware) as s:
        r = ingest(s, proj, runs, '--period', 'month')
        assert r.returncode == 0, r.stderr
        assert sorted(p.name for p in folder(runs).iterdir()) == ['2026-01.jsonl', '2026-02.jsonl']
        assert [e['period'] for e in events(folder(runs) / '2026-01.jsonl') if e['kind'] == 'run_start'] == ['2026-01']
        src = {Path(x['file']).name for e in events(folder(runs) / '2026-01.jsonl') if e['kind'] == 'evidence'
               for x in e['source']}
        assert src == {'late.jsonl'}
        tokyo = tmp_path / 'tokyo'
        r = ingest(s, proj, tokyo, '--period', 'month', '--tz', 'Asia/Tokyo')
        assert r.returncode == 0, r.stderr
        assert sorted(p.name for p in folder(tokyo).iterdir()) == ['2026-02.jsonl']
        bad = ingest(s, proj, tmp_path / 'x', '--period', 'month', '--tz', 'Mars/Olympus')
    assert bad.returncode == 2 and bad.stderr.count('\n') == 1 and "'Mars/Olympus': not a time zone" in bad.stderr

def test_growth_in_the_current_period_adds_turns_only_there_and_level2_goes_on_from_it(tmp_path):
    proj = incident_project(tmp_path / 'home', months=3, incidents=12)
    runs = tmp_path / 'runs'
    with FakeServer(gate=level_aware) as s:
        r = ingest(s, proj, runs, '--period', 'month', '--consolidate')
        assert r.returncode == 0, r.stderr
        # the cost of every period, up front, before each period's own as it starts
        head = r.stderr.splitlines()[0]
        assert head.startswith('-home-dev-ops: 3 periods by month (2026-01 .. 2026-03), a log for each of 1 query '
                               'in each: about ') and ' chunks (' in head, head
        before = {p.name: p.read_bytes() for p in folder(runs).iterdir()}
        assert sorted(before) == ['2026-01.jsonl', '2026-02.jsonl', '2026-03.jsonl', LEVEL2_LOG]
        l2_turns = [e['t'] for e in events(folder(runs) / LEVEL2_LOG) if e['kind'] == 'gate']
        assert l2_turns == [1, 2, 3]
        march = lambda: [e['t'] for e in events(folder(runs) / '2026-03.jsonl') if e['kind'] == 'gate']
        read_before = march()
        # a new session in March, the current period
        incident_session(proj, 'S9999', datetime(2026, 3, 28, 9, tzinfo=timezone.utc), [900, 901])
        calls = len(s.requests)
        r = ingest(s, proj, runs, '--period', 'month', '--consolidate', '--resume')
        assert r.returncode == 0, r.stderr
        added = len(s.requests) - calls
    after = {p.name: p.read_bytes() for p in folder(runs).iterdir()}
    # the finished periods' logs never change; March's grows; level 2 keeps its turns and reads March again
    assert [after[m] == before[m] for m in ('2026-01.jsonl', '2026-02.jsonl')] == [True, True]
    march_log = after['2026-03.jsonl']
    assert march_log.startswith(before['2026-03.jsonl']) and march_log != before['2026-03.jsonl']
    assert after[LEVEL2_LOG].startswith(before[LEVEL2_LOG])
    new_l1 = len(march()) - len(read_before)
    assert new_l1 > 0 and march()[:len(read_before)] == read_before
    l2 = events(folder(runs) / LEVEL2_LOG)
    assert [e['t'] for e in l2 if e['kind'] == 'gate'] == [1, 2, 3, 4]
    assert [x['period'] for e in l2 if e['kind'] == 'gate' for x in e['read']][-1] == '2026-03'
    assert added == new_l1 + 1            # the new chunks of March, and one level-2 call
    assert 'INC-0900' in [e for e in l2 if e['kind'] == 'memory'][-1]['text']
    assert verify(folder(runs) / LEVEL2_LOG, strict=True).ok

def test_a_rewritten_period_log_makes_verify_call_the_level2_log_stale(tmp_path):
    proj = incident_project(tmp_path / 'home', months=2, incidents=8)
    runs = tmp_path / 'runs'
    with FakeServer(gate=level_aware) as s:
        assert ingest(s, proj, runs, '--period', 'month', '--consolidate').returncode == 0
        l2 = folder(runs) / LEVEL2_LOG
        ok = memgate('verify', l2)
        assert ok.returncode == 0 and ok.stderr == ''
        shutil.move(folder(runs) / '2026-01.jsonl', tmp_path / 'aside.jsonl')
        assert ingest(s, proj, runs, '--period', 'month', '--resume').returncode == 0
    v = memgate('verify', l2)
    assert v.returncode == 1 and ': ok: ' in v.stdout
    assert (f"{l2}: stale: period 2026-01: 2026-01.jsonl no longer holds the line" in v.stderr
            and '(the log was rewritten): memgate consolidate' in v.stderr)

def test_show_evidence_goes_down_from_the_level2_memory_to_a_session_line(tmp_path):
    proj = incident_project(tmp_path / 'home', months=2, incidents=8)
    runs = tmp_path / 'runs'
    with FakeServer(gate=level_aware) as s:
        assert ingest(s, proj, runs, '--period', 'month', '--consolidate').returncode == 0
    r = memgate('show', runs, '--evidence')
    assert r.returncode == 0 and r.stdout.count('== incidents') == 1
    assert '== incidents  level 2 over 2 periods' in r.stdout and '\nperiods:\n  2026-01  ' in r.stdout
    # an update of level 2, its period's update, the session file and the record it was written from
    line = next(l for l in r.stdout.splitlines() if l.startswith('      2026-01 t='))
    file, ref = line.split(': ', 1)[1].split(' ')[:2]
    rows = [json.loads(l) for l in (proj / file).read_text().splitlines()]
    assert ref in {row['uuid'] for row in rows}

def mcp_memory(runs, *calls) -> list:
    "`memgate mcp` over `runs`, driven by the MCP SDK's stdio client: the `memory` tool's answers, then the resources."
    mcp = pytest.importorskip('mcp', reason="the mcp extra is not installed (pip install -e '.[mcp]')")
    argv = ['-m', 'memgate.cli', 'mcp', '--log-dir', str(runs)]
    params = mcp.StdioServerParameters(command=sys.executable, args=argv, env=clean_env())
    async def go():
        async with mcp.stdio_client(params, errlog=open(os.devnull, 'w')) as (read, write):
            async with mcp.ClientSession(read, write) as s:
                await s.initialize()
                got = [json.loads((await s.call_tool('memory', c)).content[0].text) for c in calls]
                listed = [r.name for r in (await s.list_resources()).resources]
                return got + [listed]
    return run(asyncio.wait_for(go(), 120))

def test_mcp_and_sync_serve_the_level2_memory(tmp_path):
    from memgate import recall
    proj = incident_project(tmp_path / 'home', months=2, incidents=8)
    runs = tmp_path / 'runs'
    with FakeServer(gate=level_aware) as s:
        assert ingest(s, proj, runs, '--period', 'month', '--consolidate').returncode == 0
    top = [e for e in events(folder(runs) / LEVEL2_LOG) if e['kind'] == 'memory'][-1]['text']
    got = recall.memory(runs, 'incidents')
    assert (got['level'], got['memory'], [p['period'] for p in got['periods']]) == (2, top, ['2026-01', '2026-02'])
    assert recall.memory(runs, 'incidents', period='2026-02')['level'] == 1
    served = mcp_memory(runs, dict(query='incidents'), dict(query='incidents', period='2026-02'))
    assert [(m['level'], m['memory']) for m in served[:1]] == [(2, top)] and served[1]['period'] == '2026-02'
    assert served[2] == ['-home-dev-ops/incidents']   # one resource: the level-2 memory speaks for the query
    agents = tmp_path / 'AGENTS.md'
    r = memgate('sync', '--log-dir', runs, '--agents-md', agents, '--unreviewed')
    assert r.returncode == 0, r.stderr
    text = agents.read_text()
    assert 'updated (1 note)' in r.stdout and text.count('### Note ') == 1
    assert 'covers: 2 periods, 2026-01 .. 2026-02 (level 2 over the period memories)' in text
    assert all(line in text for line in top.splitlines())

def consolidated_copy(tmp_path):
    "Six months of period logs under runs/, and a copy of them under clean/ consolidated without interruption."
    proj = incident_project(tmp_path / 'home', months=6, incidents=24)
    runs, clean = tmp_path / 'runs', tmp_path / 'clean'
    with FakeServer(gate=level_aware) as s:
        assert ingest(s, proj, runs, '--period', 'month').returncode == 0
    shutil.copytree(runs, clean)
    with FakeServer(gate=level_aware) as s:
        assert ingest(s, proj, clean, 'consolidate').returncode == 0
    return proj, runs, clean

def test_kill_9_during_consolidation_then_resume_gives_the_log_a_clean_run_gives(tmp_path):
    proj, runs, clean = consolidated_copy(tmp_path)
    qf = tmp_path / 'queries.toml'
    with FakeServer(gate=level_aware, latency=0.3) as s:
        cmd = [sys.executable, '-m', 'memgate.cli', 'consolidate', '--project', str(proj), '--queries', str(qf),
               '--base-url', s.url, '--model', 'test-model', '--log-dir', str(runs), '--chunk-tokens', '1200']
        p = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=clean_env())
        seen = 0
        # a command that ended early (no more lines) must fail the test, not spin on
        while seen < 2 and (line := p.stderr.readline()):
            seen += line.startswith('level 2 [')
        p.kill()
        p.wait()
        l2 = folder(runs) / LEVEL2_LOG
        assert seen == 2 and events(l2)[-1]['kind'] != 'run_end' and verify(l2).ok
        r = ingest(s, proj, runs, '--period', 'month', '--consolidate', '--resume')
        assert r.returncode == 0, r.stderr
    assert turn_events(l2) == turn_events(folder(clean) / LEVEL2_LOG)
    assert [e['t'] for e in events(l2) if e['kind'] == 'gate'] == list(range(1, 7)) and verify(l2, strict=True).ok

def test_export_gives_level2_turns_with_the_prompts_they_were_sent(tmp_path):
    proj = incident_project(tmp_path / 'home', months=2, incidents=8)
    runs = tmp_path / 'runs'
    with FakeServer(gate=level_aware) as s:
        assert ingest(s, proj, runs, '--period', 'month', '--consolidate').returncode == 0
        sent = [r['messages'][-1]['content'] for r in s.requests]
    out = tmp_path / 'l2.jsonl'
    r = memgate('export', folder(runs) / LEVEL2_LOG, '--out', out)
    assert r.returncode == 0 and 'wrote 2 turns of 1 log' in r.stderr, r.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [x['messages'][-1]['content'] for x in records] == sent[-2:]
    assert all('[Memory of period 2026-0' in x['messages'][-1]['content'] for x in records)

def test_consolidating_without_period_logs_says_how_to_make_them_and_no_resume(tmp_path):
    proj = incident_project(tmp_path / 'home', months=1, incidents=2)
    with FakeServer(gate=level_aware) as s:
        r = ingest(s, proj, tmp_path / 'runs', 'consolidate')
    assert r.returncode == 1 and len(s.requests) == 0 and 'Traceback' not in r.stderr
    assert (f"incidents level 2: failed: {folder(tmp_path / 'runs')}: no period logs to consolidate "
            "(memgate ingest --period month writes them)") in r.stderr
    assert '--resume' not in r.stderr

def test_a_run_of_another_period_kind_into_the_same_folder_is_refused_before_any_call(tmp_path):
    proj = incident_project(tmp_path / 'home', months=2, incidents=6)
    runs = tmp_path / 'runs'
    with FakeServer(gate=level_aware) as s:
        assert ingest(s, proj, runs, '--period', 'month', '--consolidate').returncode == 0
        before, calls = {p.name: p.read_bytes() for p in folder(runs).iterdir()}, len(s.requests)
        for kind in ('day', 'week', 'session'):
            r = ingest(s, proj, runs, '--period', kind, '--consolidate')
            assert r.returncode == 2 and len(s.requests) == calls, r.stderr
            assert r.stderr == (f"memgate ingest: error: {folder(runs)}: holds 2 period logs by month; "
                                f"logs by {kind} beside them would mix both kinds in one level 2: give this "
                                f"run a folder of its own, --log-dir {runs}-{kind}\n")
        assert {p.name: p.read_bytes() for p in folder(runs).iterdir()} == before
        # the advice works as given
        r = ingest(s, proj, Path(f"{runs}-day"), '--period', 'day', '--consolidate')
        assert r.returncode == 0 and len(s.requests) > calls, r.stderr
    # a folder mixed by hand: level 2 refuses it and verify flags it
    day = next(p for p in folder(f"{runs}-day").glob('20*.jsonl'))
    shutil.copy(day, folder(runs) / day.name)
    v = memgate('verify', runs)
    assert v.returncode == 1 and f"{folder(runs)}: mixes period logs by month and day: level 2 reads one" in v.stderr
    with FakeServer(gate=level_aware) as s:
        r = ingest(s, proj, runs, 'consolidate')
        assert r.returncode == 1 and not s.requests
    assert "holds period logs of 2 kinds (2 logs by month, 1 log by day); level 2 reads one" in r.stderr

def test_session_period_logs_have_portable_names_and_old_names_are_still_resumed_and_consolidated(tmp_path):
    from memgate.files import legacy_name
    proj = incident_project(tmp_path / 'home', months=2, incidents=6)
    runs = tmp_path / 'runs'
    with FakeServer(gate=level_aware) as s:
        assert ingest(s, proj, runs, '--period', 'session', '--consolidate').returncode == 0
        names = sorted(p.name for p in folder(runs).iterdir())
        assert len(names) > 2 and not any(set(n) & set(' :*?"<>|') for n in names), names
        # the logs of a version that named them with spaces and colons: renamed back, level 2 made again
        shutil.rmtree(folder(runs))
        assert ingest(s, proj, runs, '--period', 'session').returncode == 0
        for p in list(folder(runs).glob('20*.jsonl')):
            p.rename(p.with_name(legacy_name(read_log(p).events[0]['period']) + '.jsonl'))
        old = sorted(p.name for p in folder(runs).iterdir())
        assert all(' ' in n and ':' in n for n in old), old
        assert ingest(s, proj, runs, 'consolidate').returncode == 0
        # a new session: its log gets the portable name, the old logs are resumed where they are
        incident_session(proj, 'S9999', datetime(2026, 2, 27, 9, tzinfo=timezone.utc), [900])
        before = {n: (folder(runs) / n).read_bytes() for n in old}
        r = ingest(s, proj, runs, '--period', 'session', '--consolidate', '--resume')
        assert r.returncode == 0, r.stderr
    now = sorted(p.name for p in folder(runs).iterdir())
    assert set(old) < set(now) and len(now) == len(old) + 2          # the new session's log, and level 2's
    assert all((folder(runs) / n).read_bytes() == before[n] for n in old)
    l2 = folder(runs) / LEVEL2_LOG
    assert memgate('verify', runs).returncode == 0
    assert 'INC-0900' in [e for e in events(l2) if e['kind'] == 'memory'][-1]['text']

def test_review_of_the_bundled_run_by_day_shows_each_level2_line_its_period_evidence_kind(tmp_path):
    "The README's path for long histories, on the bundled sessions' three days: no level-2 line is left untold."
    runs = tmp_path / 'runs'
    r = memgate('ingest', '--project', FIXTURES / 'transcripts', '--model', 'keyword-baseline', '--period', 'day',
                '--consolidate', '--log-dir', runs, '--quiet')
    assert r.returncode == 0, r.stderr
    listed = memgate('review', '--log-dir', runs).stdout
    assert len(re.findall(r'^== transcripts/', listed, re.M)) == 4
    assert 'cannot be told' not in listed and ' from period 2025-09-25 t=' in listed
    marked = re.findall(r'^  line \d+ \((tool output|harness text), t=\d, from period 2025-\d\d-\d\d t=\d+'
                        r'(?: by word overlap)?\): ', listed, re.M)
    assert len(marked) == 22 and {'tool output', 'harness text'} == set(marked)
    assert "evidence: period 2025-09-03's memory, from the agent's words" in listed

def test_a_ctrl_c_during_consolidate_advises_the_command_as_typed_and_following_it_finishes_level2(tmp_path):
    "Level 2 goes on by itself: the advice was `consolidate … --resume`, which consolidate refuses (issue 50)."
    proj, runs, clean = consolidated_copy(tmp_path)
    with FakeServer(gate=level_aware, latency=0.3) as s:
        cmd = [sys.executable, '-m', 'memgate.cli', 'consolidate', '--project', str(proj), '--queries',
               str(tmp_path / 'queries.toml'), '--base-url', s.url, '--model', 'test-model', '--log-dir', str(runs),
               '--chunk-tokens', '1200']
        p = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=clean_env())
        while not p.stderr.readline().startswith('level 2 ['): pass
        p.send_signal(signal.SIGINT)
        err = p.communicate(timeout=120)[1]
        advice = [line.split('go on where it stopped with: ', 1)[1] for line in err.splitlines()
                  if 'go on where it stopped with: ' in line]
        assert p.returncode == 130 and advice, err
        again = shlex.split(advice[-1])
        assert again[:2] == ['memgate', 'consolidate'] and '--resume' not in again, advice
        r = subprocess.run([sys.executable, '-m', 'memgate.cli', *again[1:]], capture_output=True, text=True,
                           timeout=300, env=clean_env())
        assert r.returncode == 0, r.stderr
    l2 = folder(runs) / LEVEL2_LOG
    assert turn_events(l2) == turn_events(folder(clean) / LEVEL2_LOG) and verify(l2).ok

def test_a_level2_run_that_fails_after_a_turn_says_its_turns_and_the_command_that_goes_on(tmp_path):
    "It said 'failed before any turn' and offered nothing (issue 50)."
    proj = incident_project(tmp_path / 'home', months=3, incidents=6)
    runs = tmp_path / 'runs'
    with FakeServer(gate=level_aware) as s:
        assert ingest(s, proj, runs, '--period', 'month').returncode == 0
    with FakeServer(gate=level_aware, faults=[None, '500', '500', '500']) as s:
        r = ingest(s, proj, runs, 'consolidate', '--retries', '0')
    assert r.returncode == 1 and 'failed before any turn' not in r.stdout, r.stdout
    assert re.search(r'incidents level 2: run \w+  chunks 1 ', r.stdout), r.stdout
    advice = [line.split('go on where it stopped with: ', 1)[1] for line in r.stderr.splitlines()
              if 'go on where it stopped with: ' in line]
    assert len(advice) == 1 and '--resume' not in advice[0], r.stderr
    with FakeServer(gate=level_aware) as s:
        again = shlex.split(advice[0])[1:]
        url = again.index('--base-url') + 1
        again[url] = s.url                               # the server came back on another port
        r = subprocess.run([sys.executable, '-m', 'memgate.cli', *again], capture_output=True, text=True,
                           timeout=300, env=clean_env())
    assert r.returncode == 0 and verify(folder(runs) / LEVEL2_LOG).ok, r.stderr
    assert [e['t'] for e in events(folder(runs) / LEVEL2_LOG) if e['kind'] == 'gate'] == [1, 2, 3]
