"The ungated ablation, `ingest --gate off`: every parsed turn replaces memory, whatever <check> said."
import json
from pathlib import Path
from memgate.testing import FakeServer
from helpers import memgate
from memgate.log import verify
from memgate.parser import gate_response
from memgate.prompt import prompt_parts

PROJECT = Path(__file__).parent.parent / 'fixtures' / 'transcripts'
QUERY = 'infra-root-causes'
LINE = ' '.join(['timeout'] * 60)

def rewriting_gate(prompt: str) -> str:
    "Always writes a longer candidate (MemAgent's habit); says yes only when the chunk mentions a timeout."
    memory, section = prompt_parts(prompt)
    candidate = ('' if memory == 'No previous memory' else memory + '\n') + f"- {LINE}"
    return gate_response('timeout' in section.lower(), candidate, think='checked')

def run(tmp_path, name, *args):
    with FakeServer(gate=rewriting_gate) as s:
        r = memgate('ingest', '--project', PROJECT, '--base-url', s.url, '--model', 'test-model', '--query', QUERY,
                    '--log-dir', tmp_path / name, *args)
    return r, tmp_path / name / 'transcripts' / f'{QUERY}.jsonl'

def events(log): return [json.loads(line) for line in log.read_text().splitlines()]

def memory_by_turn(log) -> list[int]:
    "Memory tokens after each turn."
    out, tokens = [], 0
    for e in events(log):
        if e['kind'] == 'memory': tokens = e['tokens']
        if e['kind'] in ('gate', 'parse_failed'): out.append(None)
        if out: out[-1] = tokens
    return out

def first_budget_hit(log): return next((e['t'] for e in events(log) if e['kind'] == 'budget_exceeded'), None)

def test_gate_off_applies_every_parsed_turn_and_fills_memory_no_later_than_the_gated_run(tmp_path):
    r_on, on = run(tmp_path, 'on')
    r_off, off = run(tmp_path, 'off', '--gate', 'off')
    assert r_on.returncode == r_off.returncode == 0, r_off.stderr
    assert [events(x)[0]['config']['gate'] for x in (on, off)] == ['on', 'off']
    assert '(ungated: --gate off)' in r_off.stdout and 'ungated' not in r_on.stdout
    assert verify(off).ok and verify(on).ok
    said = {e['t']: e['update'] for e in events(off) if e['kind'] == 'gate'}
    applied = {e['t'] for e in events(off) if e['kind'] == 'memory'}
    hits = {e['t'] for e in events(off) if e['kind'] == 'budget_exceeded'}
    assert applied | hits == set(said) and not applied & hits      # every parsed turn applied, or refused by the budget
    assert [t for t in applied if not said[t]], 'some applied turns said <check>no</check>'
    gated, ungated = memory_by_turn(on), memory_by_turn(off)
    assert all(u >= g for g, u in zip(gated, ungated)) and max(ungated) <= 1024
    assert first_budget_hit(off) is not None
    assert first_budget_hit(on) is None or first_budget_hit(off) <= first_budget_hit(on)

def test_resume_refuses_to_mix_gate_modes_naming_the_setting(tmp_path):
    r, log = run(tmp_path, 'x', '--gate', 'off', '--limit', '3')
    assert r.returncode == 0, r.stderr
    r = run(tmp_path, 'x', '--resume')[0]
    assert r.returncode != 0
    assert f"{log}: gate was 'off' when this log was written, now 'on'; resuming would mix two runs" in r.stderr
