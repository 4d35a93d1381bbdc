"""Issue 51 through real `memgate` processes: a pregated run killed with SIGKILL and resumed, two periods run by two
processes at once, and --speculate 3 each write the log of one clean sequential run (but for run ids and times).

The bundled sessions hold too few yes to certify recall (tests/test_skipping.py), so these read a synthetic project
of planted incidents (tests/synth.py) in 800-token chunks, about one in six holding an incident the scripted model
(`model`) says yes to, with a scorer fitted on a plain run over another such project. At --recall 0.7 --delta 0.3
the controller certifies after 10 yes and then skips most chunks without an incident. The model's memory fills
halfway through, so the later yes change nothing (`budget_exceeded`): turns that move the controller with no
restart of the turns asked ahead.
"""
import collections, json, math, re, signal, subprocess, threading, time
from datetime import datetime
import pytest
from helpers import clean_env, cli, memgate
from synth import incident_project, incident_session
from memgate.cascade import Cascade, audited
from memgate.domain import sha256_text
from memgate.log import TURN_KINDS, read_log
from memgate.loop import outcome_of
from memgate.parser import gate_response
from memgate.prompt import NO_PREVIOUS_MEMORY, prompt_parts
from memgate.testing import INCIDENT, FakeServer, incident_gate

Q, FOLDER = 'infra-root-causes', '-home-dev-ops'
CHUNKS = ('--chunk-tokens', '800')
PREGATE = ('--recall', '0.7', '--delta', '0.3', '--audit-seed', 'issue-51')
# what differs between two runs of the same code (as in tests/same_logs.py), and speculation's discarded calls
VARIES = {'run', 'ts', 'prev', 'seal', 'elapsed_s', 'latency_s', 'queue_s', 'first_token_s', 'decode_s', 'speculation'}

def normal(events) -> list[dict]:
    "`events` without what differs between two runs of the same code."
    return [{k: v for k, v in e.items() if k not in VARIES} for e in events]

def turns(events) -> list[dict]:
    "The turns' events (gates, skips, evidence, memories), normalised: what a run decided, chunk by chunk."
    return normal(e for e in events if e['kind'] not in ('run_start', 'run_end'))

def kinds(events) -> str:
    "A letter a turn: y a yes, n a no, . a skip (the shape of a run, for a failing assertion)."
    return ''.join({'gate': 'y' if e.get('update') else 'n', 'skipped': '.'}.get(e['kind'], '') for e in events)

def lines_of(path) -> int:
    "The whole lines the log at `path` holds now (0 if it is not there yet)."
    try: return path.read_bytes().count(b'\n')
    except FileNotFoundError: return 0

def whole_lines(path) -> list[dict]:
    "The records of the log's whole lines (a kill may leave half a line after them)."
    return [json.loads(line) for line in path.read_bytes().split(b'\n')[:-1]]

def model(prompt: str) -> str:
    "The scripted model: yes to a chunk holding an incident its memory lacks, added with a note (half fit the memory)."
    memory, section = prompt_parts(prompt)
    lines = [] if memory == NO_PREVIOUS_MEMORY else memory.splitlines()
    new = [f"- {m[0]}; seen in the worker logs, the fix confirmed by the heartbeats after it"
           for m in re.finditer(INCIDENT, section)]
    new = [line for line in new if line not in lines]
    if not new: return gate_response(False, '\n'.join(lines), think='nothing new')
    return gate_response(True, '\n'.join(lines + new), think=f"{len(new)} new")

def said_of(stdout: str) -> str:
    "What a run's summary says of its pregate: chunks read and skipped, the recall kept, the calls saved."
    return next(line for line in stdout.splitlines() if line.startswith('  read '))

def ingest(project, server, log_dir, *args) -> list:
    "The `memgate ingest` command line of query Q over `project`, with the scripted model of `server`."
    return cli('ingest', '--project', project, '--query', Q, '--base-url', server.url, '--model', 'test-model',
               *CHUNKS, '--log-dir', log_dir, '--quiet', *args)

def ran(cmd):
    "Run `cmd` to its end; its CompletedProcess, which must have succeeded."
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=clean_env())
    assert r.returncode == 0 and 'Traceback' not in r.stderr, r.stderr
    return r

@pytest.fixture(scope='module')
def scorer(tmp_path_factory):
    "A scorer fitted on a plain run over 12 incidents of 2025 (not a project the tests read), yes to each incident."
    d = tmp_path_factory.mktemp('fit')
    train = incident_project(d / 'train', months=1, incidents=12, per_session=3, filler=3, year=2025)
    with FakeServer(gate=incident_gate) as s: ran(ingest(train, s, d / 'plain'))
    r = memgate('pregate', 'fit', d / 'plain' / FOLDER / f'{Q}.jsonl', '--out', d / 'scorer.json')
    assert r.returncode == 0 and 'AUC 1.00' in r.stdout, r.stdout + r.stderr
    return d / 'scorer.json'

@pytest.fixture(scope='module')
def project(tmp_path_factory):
    "48 incidents of 2026, three sessions of three a month, each after three chunks of heartbeat noise."
    return incident_project(tmp_path_factory.mktemp('proj'), months=1, incidents=48, per_session=3, filler=3)

@pytest.fixture(scope='module')
def clean(tmp_path_factory, project, scorer):
    "The uninterrupted pregated run every other run must agree with: its log's events, and the server's requests."
    d = tmp_path_factory.mktemp('clean')
    with FakeServer(gate=model) as s: r = ran(ingest(project, s, d, '--pregate', scorer, *PREGATE))
    events = read_log(d / FOLDER / f'{Q}.jsonl').events
    asked = [b for b in s.requests if 'messages' in b]
    # one request a turn read: no parse retry, so the n-th request is the n-th gate's
    assert len(asked) == sum(e['kind'] == 'gate' for e in events), kinds(events)
    return events, asked, said_of(r.stdout)

class Holding:
    "`model`, but a prompt of a chunk first read at turn `hold` or later waits until `release` is set."
    def __init__(self, turn_of: dict, hold: int):
        self.turn_of, self.hold = turn_of, hold        # turn_of: chunk sha -> its first t in the clean run
        self.release = threading.Event()

    def __call__(self, prompt: str) -> str:
        if self.turn_of[sha256_text(prompt_parts(prompt)[1])] >= self.hold: self.release.wait(300)
        return model(prompt)

def killed_at(cmd, log, lines: int, gate: Holding) -> int:
    "Run `cmd`, SIGKILL it once its log holds `lines` lines; the lines it held then."
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env())
    try:
        deadline = time.monotonic() + 300
        while lines_of(log) < lines:
            assert p.poll() is None, p.communicate()[1]
            assert time.monotonic() < deadline, f"the log has {lines_of(log)} lines, not {lines}"
            time.sleep(0.01)
        p.send_signal(signal.SIGKILL)
        p.communicate(timeout=60)
    finally:
        if p.poll() is None: p.kill()
        gate.release.set()
    assert p.returncode == -signal.SIGKILL
    return lines_of(log)

# where the kill lands: once the log holds `lines` lines, the model held at the first chunk asked after them (the run
# cannot end first); then, with `last` the kind of the log's last line, or at once (None: wherever the run got to)
KILLS = {'after a skip, a few skips in': (100, 1, 'skipped'), 'after a new memory, speculating': (110, 3, 'memory'),
         'after a yes over the memory budget': (275, 1, 'budget_exceeded'), 'at once after line 160': (160, 1, None)}

def test_the_clean_run_certifies_early_and_skips_through_most_of_the_run(clean):
    events, _, said = clean
    n = lambda kind: sum(e['kind'] == kind for e in events)
    assert said.startswith(f"  read {n('gate')}  skipped {n('skipped')}: recall "), said
    shape = kinds(events)
    assert shape.count('.') >= 60 and shape.index('.') < len(shape) // 3 and shape[-40:].count('.') >= 10, shape
    assert events[-1]['kind'] == 'run_end' and events[-1]['status'] == 'complete'
    # every kill below comes after the first skip, and before the end
    first, at = next(i for i, e in enumerate(events) if e['kind'] == 'skipped'), [k[0] for k in KILLS.values()]
    assert first < min(at) and len(events) > max(at)

@pytest.mark.parametrize('where', KILLS)
def test_a_pregated_run_killed_and_resumed_writes_the_clean_runs_log(tmp_path, project, scorer, clean, where):
    lines, speculate, last_kind = KILLS[where]
    events, _, said = clean
    turn_of = {}                # chunk sha -> the first turn reading it (each session opens with the same chunk)
    for e in events:
        if e['kind'] in TURN_KINDS: turn_of.setdefault(e['chunk'], e['t'])
    # the clean run's first gate on line `lines` + 1 or later, of a chunk first read there: held at its model call
    at = next(i for i, e in enumerate(events) if i >= lines and e['kind'] == 'gate' and turn_of[e['chunk']] == e['t'])
    gate = Holding(turn_of, events[at]['t'])
    log = tmp_path / FOLDER / f'{Q}.jsonl'
    with FakeServer(gate=gate) as s:
        cmd = ingest(project, s, tmp_path, '--pregate', scorer, *PREGATE, '--speculate', speculate)
        kept = killed_at(cmd, log, at if last_kind else lines, gate)
        before = whole_lines(log)
        # killed mid-run, with turns skipped before the kill and more to skip after it
        assert lines <= kept <= at and before[-1]['kind'] != 'run_end'
        if last_kind: assert kept == at and before[-1]['kind'] == last_kind
        last = max(e['t'] for e in before if e['kind'] in TURN_KINDS)
        assert 'skipped' in {e['kind'] for e in before}
        assert any(e['kind'] == 'skipped' and e['t'] > last for e in events)
        gate.hold = math.inf
        r = ran([*cmd, '--resume'])
    # the summary counts the whole log's turns, as the clean run's does
    assert f"resuming after t={last}" in r.stderr and said_of(r.stdout) == said, r.stdout + r.stderr
    after = read_log(log).events
    starts = [e for e in after if e['kind'] == 'run_start']
    assert turns(after) == turns(events), (kinds(after), kinds(events))
    assert normal(starts) == normal([events[0], dict(events[0], resumed_from=last)])
    assert [e['kind'] for e in after if e['kind'] in ('run_start', 'run_end')] == ['run_start', 'run_start', 'run_end']
    assert normal(after[-1:]) == normal(events[-1:])
    v = memgate('verify', log)
    assert v.returncode == 0 and v.stdout.startswith(f"{log}: ok: "), v.stdout + v.stderr

def test_speculating_3_with_skipping_writes_the_sequential_log(tmp_path, project, scorer, clean):
    events, asked, said = clean
    with FakeServer(gate=model) as s:
        r = ran(ingest(project, s, tmp_path, '--pregate', scorer, *PREGATE, '--speculate', '3'))
    got = read_log(tmp_path / FOLDER / f'{Q}.jsonl').events
    assert normal(got) == normal(events) and said_of(r.stdout) == said, (kinds(got), kinds(events))
    # turns were asked ahead, more than one at once: some of their answers thrown away when memory changed
    assert s.most_busy > 1 and got[-1]['speculation']['ahead'] == 3, r.stderr
    assert len([b for b in s.requests if 'messages' in b]) > len(asked)

# two periods by day, each of 8 sessions of 3 incidents
DAYS = ('2026-01-05', '2026-01-06')

@pytest.fixture(scope='module')
def two_days(tmp_path_factory):
    "A project whose sessions began on two days: 24 incidents on each."
    proj = tmp_path_factory.mktemp('days') / 'projects' / FOLDER
    for d, day in enumerate(DAYS):
        for k in range(8):
            start = datetime.fromisoformat(f'{day}T{8 + k:02d}:00:00+00:00')
            incident_session(proj, f'D{d}S{k}', start, range(100 * d + 3 * k, 100 * d + 3 * k + 3), filler=3)
    return proj

class Meeting:
    "`model`, but the first two prompts wait for each other: two runs that ask one at a time both run at once."
    def __init__(self):
        self.met, self.n, self.lock, self.missed = threading.Barrier(2, timeout=120), 0, threading.Lock(), False

    def __call__(self, prompt: str) -> str:
        with self.lock: self.n, first = self.n + 1, self.n < 2
        try:
            if first: self.met.wait()
        except threading.BrokenBarrierError:
            self.missed = True               # one run asked alone for two minutes
            raise
        return model(prompt)

def replayed_alone(events) -> Cascade:
    "The controller of a period log's run fed its own turns only; each skip checked against it as it is fed."
    start = events[0]
    params = {k: v for k, v in start['config']['pregate'].items() if k not in ('scorer', 'seed')}
    c = Cascade(**params)
    for e in (e for e in events if e['kind'] in TURN_KINDS):
        if e['kind'] == 'skipped': assert e['threshold'] == c.threshold(), e
        else: assert e['audited'] == audited(e['chunk'], start['config']['pregate']['seed'], c.rate), e
        c.feed(*outcome_of(e))
    return c

def test_two_periods_run_at_once_each_write_the_log_they_write_alone(tmp_path, two_days, scorer):
    folder = lambda d: d / FOLDER / Q
    with FakeServer(gate=model) as s:
        ran(ingest(two_days, s, tmp_path / 'one', '--pregate', scorer, *PREGATE, '--period', 'day'))
    meeting = Meeting()
    with FakeServer(gate=meeting) as s:
        runs = [subprocess.Popen(ingest(two_days, s, tmp_path / 'two', '--pregate', scorer, *PREGATE, '--period',
                                        'day', '--since', day, '--until', day),
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env())
                for day in DAYS]
        said = [p.communicate(timeout=300) for p in runs]
    assert [p.returncode for p in runs] == [0, 0] and not meeting.missed, said
    assert sorted(f.name for f in folder(tmp_path / 'two').iterdir()) == [f'{d}.jsonl' for d in DAYS]
    alone = {d: read_log(folder(tmp_path / 'one') / f'{d}.jsonl').events for d in DAYS}
    for day in DAYS:
        log = folder(tmp_path / 'two') / f'{day}.jsonl'
        events = read_log(log).events
        assert normal(events) == normal(alone[day]), (day, kinds(events), kinds(alone[day]))
        assert memgate('verify', log).returncode == 0
        # each period certifies on its own turns and skips: no controller state came from the other
        c = replayed_alone(events)
        assert c.skipped >= 20 and c.skipped == sum(e['kind'] == 'skipped' for e in events), kinds(events)
        assert events[0]['period'] == day and events[0]['config']['pregate']['seed'] == 'issue-51'
    # the two periods read different chunks, with one scorer and one seed
    shas = [{e['chunk'] for e in alone[d] if e['kind'] == 'skipped'} for d in DAYS]
    assert not shas[0] & shas[1] and alone[DAYS[0]][0]['config'] == alone[DAYS[1]][0]['config']

# a run killed before its first turn, then a plain run with another pregate (or none where it had one)
SWAPS = {'another recall': (['--recall', '0.7'], ['--recall', '0.8']), 'a pregate added': (None, []),
         'the pregate dropped': ([], None)}

@pytest.mark.parametrize('swap', SWAPS)
def test_a_run_killed_before_its_first_turn_is_replaced_by_one_with_another_pregate(tmp_path, project, scorer, swap):
    "As a log whose first run logged no turn is for any other change of settings: kept aside, and begun again."
    was, now = ([] if a is None else ['--pregate', scorer, *a] for a in SWAPS[swap])
    log = tmp_path / FOLDER / f'{Q}.jsonl'
    gate = Holding(collections.defaultdict(int), 0)                # every prompt held: no turn is logged
    with FakeServer(gate=gate) as s:
        assert killed_at(ingest(project, s, tmp_path, *was), log, 1, gate) == 1
        killed = log.read_bytes()
        gate.hold = math.inf
        r = ran(ingest(project, s, tmp_path, *now, '--limit', '5'))
    aside = [p for p in log.parent.iterdir() if p.name.endswith('.jsonl.old')]
    assert len(aside) == 1 and aside[0].read_bytes() == killed
    assert (f"{log}: its earlier run logged no turn and cannot be continued ({log}: its last run read with "
            in r.stderr and f"; replaced, kept as {aside[0]}" in r.stderr), r.stderr
    events = read_log(log).events
    assert [e['t'] for e in events if e['kind'] in TURN_KINDS] == [1, 2, 3, 4, 5]
    assert [e['kind'] for e in events if e['kind'] in ('run_start', 'run_end')] == ['run_start', 'run_end']
    assert ('pregate' in events[0]['config']) == bool(now) and memgate('verify', log).returncode == 0
