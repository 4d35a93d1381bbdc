"""Memory that keeps up (issue 53): `memgate watch` reads each session once it is done (idle for the quiet time, or
ended by `memgate hook`), in each log's order, and consolidates each closed period once; a watch killed with -9
goes on from its logs; the hook always exits 0 and prints nothing."""
import json, os, signal, subprocess, time
from pathlib import Path
from helpers import cli, clean_env, memgate
from same_logs import normalised
from synth import cc, write_jsonl
from memgate.testing import FakeServer

DAY1, DAY2 = '2026-01-05', '2026-01-06'
QUERY = 'infra-root-causes'
_clock = iter(range(100_000))

def pairs(sid: str, day: str, n: int, what: str) -> list[dict]:
    "n exchanges of session `sid` on `day` about an incident, as Claude Code writes them (each record its own time)."
    rows = []
    for i in range(n):
        k = next(_clock)
        ts = lambda j: f'{day}T{10 + k // 1800:02d}:{k // 30 % 60:02d}:{k % 30 * 2 + j:02d}.000Z'
        rows += [cc('user', ts(0), f'{what} {k}: the deploy failed with a 502 from db{k}', sid=sid),
                 cc('assistant', ts(1), [dict(type='text', text=f'root cause {k}: the pool was exhausted; '
                                                               'fix: raise max_connections')], sid=sid)]
    return rows

def append(path: Path, rows: list[dict]):
    "Rows appended as an agent appends them: whole lines, at the end."
    with open(path, 'a') as f:
        for r in rows: f.write(json.dumps(r) + '\n')

def turns(folder: Path) -> dict:
    "Each log's events but its runs' starts and ends (a watch reads a period in as many runs as passes)."
    return {k: [e for e in v if e.get('kind') not in ('run_start', 'run_end')]
            for k, v in normalised(folder, folder.parent).items()}

def settled(state: Path, logs: Path, sessions: int, periods: int) -> bool:
    "Whether the watch read every session whole and level 2 read every period."
    try: seen = json.loads(state.read_text())['seen']
    except (OSError, ValueError, KeyError): return False
    level2 = logs.rglob('level2.jsonl')
    read = [json.loads(x) for p in level2 for x in p.read_text().splitlines()]
    return (len(seen) == sessions and all(s['read'] == s['size'] for s in seen.values())
            and sum(e['kind'] == 'gate' for e in read) >= periods)

def wait_for(check, seconds: float = 90.0):
    "Until `check()` holds, or fail after `seconds`."
    end = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < end, 'the watch did not settle'
        time.sleep(0.2)

def test_a_watched_project_logs_what_one_ingest_over_the_final_files_logs(tmp_path):
    proj, logs, state = tmp_path / 'proj', tmp_path / 'watched', tmp_path / 'state'
    a, b, c = proj / 'A.jsonl', proj / 'B.jsonl', proj / 'C.jsonl'
    write_jsonl(a, pairs('A', DAY1, 2, 'first'))
    write_jsonl(b, pairs('B', DAY1, 2, 'second'))
    env = clean_env(MEMGATE_STATE_DIR=str(state))
    watch = subprocess.Popen(cli('watch', '--project', proj, '--log-dir', logs, '--model', 'keyword-baseline',
                                 '--query', QUERY, '--period', 'day', '--consolidate', '--quiet-time', '6',
                                 '--quiet'), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # A is written to in bursts 0.8 s apart: never idle for the 6 s quiet time, however loaded the machine
        for burst in range(3):
            time.sleep(0.8)
            append(a, pairs('A', DAY1, 2, f'burst {burst}'))
        write_jsonl(c, pairs('C', DAY2, 2, 'new'))   # a session appears, on the next day
        payload = json.dumps(dict(session_id='B', transcript_path=str(b), cwd=str(proj),
                                  hook_event_name='SessionEnd', reason='prompt_input_exit'))
        hooked = subprocess.run(cli('hook'), input=payload, capture_output=True, text=True, env=env)
        assert (hooked.returncode, hooked.stdout, hooked.stderr) == (0, '', '')
        time.sleep(0.8)
        append(a, pairs('A', DAY1, 1, 'last'))       # then A goes quiet: both days close
        wait_for(lambda: settled(logs / 'proj' / 'watch.json', logs, 3, 2))
    finally:
        watch.send_signal(signal.SIGINT)
        out, err = watch.communicate(timeout=60)
    assert watch.returncode == 130 and 'Traceback' not in err, err
    once = memgate('ingest', '--project', proj, '--log-dir', tmp_path / 'once', '--model', 'keyword-baseline',
                   '--query', QUERY, '--period', 'day', '--consolidate', '--resume')
    assert once.returncode == 0, once.stderr
    # byte for byte but run ids, times and hash links: each day was read in one pass (A, the day's first
    # session, was done last), and level 2 read both days in one (day 2 closed first, so it waited for day 1)
    watched, one = normalised(logs, tmp_path), normalised(tmp_path / 'once', tmp_path)
    days = [f'proj/{QUERY}/{DAY1}.jsonl', f'proj/{QUERY}/{DAY2}.jsonl', f'proj/{QUERY}/level2.jsonl']
    assert sorted(watched) == sorted(one) == sorted(days) and all(watched[d] == one[d] for d in days)
    # level 2 read each closed day once, in order, as the one run did
    read = lambda log: [e['read'] for e in log if e['kind'] == 'gate']
    assert len(read(watched[days[2]])) == 2

def test_a_watch_killed_mid_read_goes_on_from_its_logs(tmp_path):
    proj, logs, state = tmp_path / 'proj', tmp_path / 'watched', tmp_path / 'state'
    for sid, day in (('A', DAY1), ('B', DAY1), ('C', DAY2)):
        write_jsonl(proj / f'{sid}.jsonl', pairs(sid, day, 12, f'session {sid}'))
        os.utime(proj / f'{sid}.jsonl', (time.time() - 3600, time.time() - 3600))     # long idle: done
    env = clean_env(MEMGATE_STATE_DIR=str(state))
    with FakeServer(latency=0.3) as s:
        model = ('--base-url', s.url, '--model', 'test-model', '--query', QUERY, '--period', 'day',
                 '--chunk-tokens', '300')
        watch = subprocess.Popen(cli('watch', '--project', proj, '--log-dir', logs, *model, '--quiet'), env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        gates = lambda: sum(x.count('"kind":"gate"') for x in
                            (p.read_text() for p in logs.rglob('*.jsonl')))
        try: wait_for(lambda: gates() >= 2)
        finally:
            watch.kill()                                            # kill -9, mid-read
            watch.communicate(timeout=30)
        again = memgate('watch', '--project', proj, '--log-dir', logs, *model, '--once',
                        MEMGATE_STATE_DIR=str(state))
        assert again.returncode == 0, again.stderr
        once = memgate('ingest', '--project', proj, '--log-dir', tmp_path / 'once', *model)
        assert once.returncode == 0, once.stderr
    watched, one = turns(logs), turns(tmp_path / 'once')
    assert watched == one and len(watched) == 2 and all(watched.values())
    # (killed mid-read: a log holds the run it cut and the run that went on)
    runs = [sum(e['kind'] == 'run_start' for e in log) for log in normalised(logs, tmp_path).values()]
    assert max(runs) == 2, runs
    verified = memgate('verify', logs)
    assert verified.returncode == 0, verified.stdout + verified.stderr

def test_the_hook_always_exits_0_and_prints_nothing(tmp_path):
    state = tmp_path / 'state'
    sent = json.dumps(dict(session_id='4f1c', transcript_path=str(tmp_path / '4f1c.jsonl'), cwd=str(tmp_path),
                           hook_event_name='SessionEnd', reason='other'))
    read_only = tmp_path / 'read-only'
    read_only.mkdir()
    read_only.chmod(0o500)
    for payload, where in ((sent, state), ('{"transcript_path": ', state), ('', state),
                           ('\x00\xff not json', state), (sent, read_only / 'state'), (sent, Path('/proc/x'))):
        r = subprocess.run(cli('hook'), input=payload, capture_output=True, text=True,
                           env=clean_env(MEMGATE_STATE_DIR=str(where)), timeout=30)
        assert (r.returncode, r.stdout, r.stderr) == (0, '', ''), (payload, where, r)
    marks = list((state / 'ended').iterdir())
    assert len(marks) == 1 and json.loads(marks[0].read_text())['path'] == str(tmp_path / '4f1c.jsonl')

def test_a_session_grown_after_it_was_read_is_read_on_from_where_it_stopped(tmp_path):
    "A resumed conversation: the watch reads on from a window and logs what `ingest --resume` logs reading it whole."
    proj, logs, state = tmp_path / 'proj', tmp_path / 'watched', tmp_path / 'state'
    a = proj / 'A.jsonl'
    secret = [cc('user', f'{DAY1}T09:00:00.000Z', 'export DEPLOY_TOKEN=Zq8vR2xK9pL4wT3sB6yH1mN7', sid='A')]
    write_jsonl(a, secret + pairs('A', DAY1, 300, 'first'))
    idle = lambda: os.utime(a, (time.time() - 3600, time.time() - 3600))
    model = ('--model', 'keyword-baseline', '--query', QUERY, '--period', 'day')
    watch = lambda: memgate('watch', '--project', proj, '--log-dir', logs, *model, '--once',
                            MEMGATE_STATE_DIR=str(state))
    ingest = lambda: memgate('ingest', '--project', proj, '--log-dir', tmp_path / 'whole', *model, '--resume')
    idle()
    first, whole = watch(), ingest()
    assert (first.returncode, whole.returncode) == (0, 0), first.stderr + whole.stderr
    append(a, pairs('A', DAY1, 3, 'resumed'))            # the conversation resumed, then left again
    idle()
    again, whole = watch(), ingest()
    assert (again.returncode, whole.returncode) == (0, 0), again.stderr + whole.stderr
    records = lambda r: [int(x.split(' records')[0].rsplit(' ', 1)[1]) for x in r.stderr.splitlines()
                         if ': read ' in x and ' records' in x]
    # the first pass read 601 records; the next a line before the last turn (a chunk), it, and the 6 new
    assert records(first) == [601] and 6 < records(again)[0] < 120, (records(first), records(again))
    assert records(whole) == [607]
    watched, whole = normalised(logs, tmp_path), normalised(tmp_path / 'whole', tmp_path)
    # one difference, in what the second run's end counts: the secrets it redacted in what it read, and the
    # window held none, while the whole read redacted the first part's again (and sent none of it)
    ends = [e for log in (watched, whole) for e in log[f'proj/{QUERY}/{DAY1}.jsonl'] if e['kind'] == 'run_end']
    assert [e['redacted'] for e in ends] == [{'password': 1}, {}, {'password': 1}, {'password': 1}]
    for e in ends: e.pop('redacted')
    assert watched == whole and all(watched.values())
