"""Periods read at once (issue 52): each period's run is independent of the others', so `--parallel N` runs N of
them together; each log is byte for byte (but for ids and times) the one a run of one period at a time writes, and
every period redacts with what the whole project taught (a secret found in one period is taken in every other)."""
import json, shlex
from helpers import ROOT, memgate
from same_logs import normalised
from synth import cc, incident_project, write_jsonl
from memgate.testing import FakeServer

def by_day(tmp_path, out, parallel, server, *extra):
    "An ingest by day of the incident project with `--parallel`; its stderr."
    proj = incident_project(tmp_path / 'home', months=3, incidents=24, per_session=2, filler=1)
    r = memgate('ingest', '--project', proj, '--base-url', server.url, '--model', 'test-model', '--period', 'day',
                '--parallel', parallel, '--log-dir', out, '--query', 'infra-root-causes', '--query',
                'build-and-test-failures', '--chunk-tokens', '300', *extra)
    assert r.returncode == 0, r.stderr
    return r.stderr

def spans(out) -> list[tuple[str, str]]:
    "Each period's time, from its first run_start to its last run_end over every query's log of it."
    by = {}
    for log in out.rglob('*.jsonl'):
        events = [json.loads(line) for line in log.read_text().splitlines()]
        starts = [e['ts'] for e in events if e['kind'] == 'run_start']
        ends = [e['ts'] for e in events if e['kind'] == 'run_end']
        a, b = by.get(log.stem, (starts[0], ends[-1]))
        by[log.stem] = (min(a, starts[0]), max(b, ends[-1]))
    return sorted(by.values())

def overlapping(spans: list[tuple[str, str]]) -> bool:
    "Whether a period began before the one before it ended."
    return any(b[0] < a[1] for a, b in zip(spans, spans[1:]))

def test_periods_run_at_once_and_each_log_is_the_one_a_period_at_a_time_writes(tmp_path):
    with FakeServer(latency=0.05) as one:
        by_day(tmp_path, tmp_path / 'one', 1, one)
    with FakeServer(latency=0.05) as many:
        said = by_day(tmp_path, tmp_path / 'many', 4, many)
    sequential, parallel = normalised(tmp_path / 'one', tmp_path), normalised(tmp_path / 'many', tmp_path)
    assert len(sequential) == 2 * 12 and sequential == parallel
    # one at a time: each period's runs end before the next period's begin; four at once: some overlap (read from
    # the logs' own times, not a server's count of requests in flight, which a loaded machine blurs)
    assert not overlapping(spans(tmp_path / 'one')) and overlapping(spans(tmp_path / 'many'))
    assert len(many.requests) == len(one.requests)
    assert '4 periods at a time' in said and ' running)' in said, said

def test_a_secret_found_in_one_period_is_taken_in_every_other(tmp_path):
    "Each period read only its own sessions: a password given on a command line on day 2 went out in day 1's prose."
    value = 'Tulip-Harbor-9931'   # (no random run: only what day 2 taught takes it)
    folder = tmp_path / 'p'
    write_jsonl(folder / 'a.jsonl', [cc('user', '2026-01-01T10:00:00.000Z', f'note: {value} , an error on db',
                                        sid='A')])
    write_jsonl(folder / 'b.jsonl', [cc('user', '2026-01-02T10:00:00.000Z',
                                        f"run: mysql -u root --password={shlex.quote(value)} shop", sid='B')])
    with FakeServer() as s:
        r = memgate('ingest', '--project', folder, '--base-url', s.url, '--model', 'test-model', '--period', 'day',
                    '--log-dir', tmp_path / 'logs', '--query', 'infra-root-causes')
        assert r.returncode == 0, r.stderr
        sent = '\n'.join(s.prompts())
    assert 'note: [REDACTED:' in sent and value not in sent and value[:8] not in sent, sent

def test_level_2_refuses_a_closed_period_without_a_finished_log_and_partial_records_it(tmp_path):
    "Level 2 read the period logs it found: a period whose log was lost or stopped was left out of it silently."
    from memgate.log import read_log
    logs, project = tmp_path / 'logs', ROOT / 'fixtures' / 'transcripts'
    r = memgate('ingest', '--project', project, '--model', 'keyword-baseline', '--query', 'infra-root-causes',
                '--period', 'day', '--log-dir', logs)
    assert r.returncode == 0, r.stderr
    folder = logs / 'transcripts' / 'infra-root-causes'
    days = sorted(p.stem for p in folder.glob('*.jsonl'))
    (folder / f'{days[1]}.jsonl').unlink()
    r = memgate('consolidate', '--project', project, '--model', 'keyword-baseline', '--query', 'infra-root-causes',
                '--log-dir', logs)
    assert r.returncode != 0 and not (folder / 'level2.jsonl').exists()
    said = [line for line in r.stderr.splitlines() if 'closed period' in line]
    assert len(said) == 1 and days[1] in said[0] and '--partial' in said[0], r.stderr
    r = memgate('consolidate', '--project', project, '--model', 'keyword-baseline', '--query', 'infra-root-causes',
                '--log-dir', logs, '--partial')
    assert r.returncode == 0, r.stderr
    start = next(e for e in read_log(folder / 'level2.jsonl').events if e['kind'] == 'run_start')
    assert start['missing'] == [days[1]] and start['periods'] == len(days) - 1
    # the advice, followed as written, reads the missing day
    advice = said[0].split('read them first (', 1)[1].split(', with this run', 1)[0]
    r = memgate(*advice.split()[1:])
    assert r.returncode == 0 and (folder / f'{days[1]}.jsonl').is_file(), r.stderr

def test_shards_run_from_two_paths_write_together_what_one_run_writes(tmp_path):
    "A project's log folder depended on its path: a shard on another machine would have written a folder of its own."
    import shutil
    from memgate.ingest import shard_of
    a, b = tmp_path / 'a' / 'transcripts', tmp_path / 'b' / 'transcripts'
    shutil.copytree(ROOT / 'fixtures' / 'transcripts', a)
    shutil.copytree(ROOT / 'fixtures' / 'transcripts', b)
    common = ('--model', 'keyword-baseline', '--query', 'infra-root-causes', '--query', 'build-and-test-failures',
              '--period', 'day')
    assert memgate('ingest', '--project', a, *common, '--log-dir', tmp_path / 'one').returncode == 0
    for k, path in ((1, a), (2, b), (3, b)):
        r = memgate('ingest', '--project', path, *common, '--shard', f'{k}/3', '--log-dir', tmp_path / 'shards')
        assert r.returncode == 0, r.stderr
    days = sorted(p.stem for p in (tmp_path / 'one' / 'transcripts' / 'infra-root-causes').glob('*.jsonl'))
    assert {shard_of(d, 3) for d in days} >= {1, 2}          # (both paths wrote some)
    # (but for ids, times and where each machine keeps the sessions: `source`)
    where = lambda text: text.replace('<root>/a/transcripts', '<p>').replace('<root>/b/transcripts', '<p>')
    same = lambda folder: {k: json.loads(where(json.dumps(v))) for k, v in normalised(folder, tmp_path).items()}
    assert sorted(p.name for p in (tmp_path / 'shards').iterdir()) == ['transcripts']
    assert same(tmp_path / 'shards') == same(tmp_path / 'one') and len(same(tmp_path / 'one')) == 2 * len(days)

def test_ctrl_c_stops_every_period_at_once_and_resume_finishes_each_as_one_at_a_time_would(tmp_path):
    "Periods run at once: a Ctrl-C must stop them all, and --resume must finish each to the log a clean run writes."
    import os, signal, subprocess, time
    from helpers import clean_env, cli
    from memgate.log import verify
    args = ('--base-url', None, '--model', 'test-model', '--query', 'infra-root-causes', '--period', 'day',
            '--parallel', '3', '--chunk-tokens', '400', '--limit', '5')
    project = ROOT / 'fixtures' / 'transcripts'
    with FakeServer(latency=0.1) as s:
        full = [a if a is not None else s.url for a in args]
        p = subprocess.Popen(cli('ingest', '--project', project, *full, '--log-dir', tmp_path / 'cut'), text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=clean_env())
        while len(s.requests) < 4 and p.poll() is None: time.sleep(0.02)
        os.kill(p.pid, signal.SIGINT)
        out, err = p.communicate(timeout=120)
        assert p.returncode == 130 and 'Traceback' not in err, err
        logs = sorted((tmp_path / 'cut').rglob('*.jsonl'))
        assert len(logs) >= 2 and all(verify(log).ok for log in logs)
        r = subprocess.run(cli('ingest', '--project', project, *full, '--log-dir', tmp_path / 'cut', '--resume'),
                           capture_output=True, text=True, env=clean_env(), timeout=300)
        assert r.returncode == 0, r.stderr
        r = subprocess.run(cli('ingest', '--project', project, *full, '--log-dir', tmp_path / 'clean'),
                           capture_output=True, text=True, env=clean_env(), timeout=300)
        assert r.returncode == 0, r.stderr
    # each period's memory and turns, as a run never stopped wrote them
    gates = lambda folder: {k: [(e['t'], e.get('candidate')) for e in v if e['kind'] == 'gate']
                            for k, v in normalised(folder, tmp_path).items()}
    memories = lambda folder: {k: [e['text'] for e in v if e['kind'] == 'memory'][-1:]
                               for k, v in normalised(folder, tmp_path).items()}
    cut, clean = tmp_path / 'cut', tmp_path / 'clean'
    assert gates(cut) == gates(clean) and memories(cut) == memories(clean)
