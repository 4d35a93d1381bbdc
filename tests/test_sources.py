"Claude Code and Codex adapters on the real sessions (counts checked by hand in the raw files) and synthetic layouts."
import json
from itertools import groupby
from collections import Counter
import pytest
from synth import claude_21_session, claude_20_session, codex_session, write_jsonl, cc
from memgate.domain import Role
from memgate.terminal import cut_middle
from memgate.reading import SourceError
from memgate.projects import load_project

def roles_per_file(project):
    out = {}
    for r in project.records(): out.setdefault(r.source.rsplit('/', 1)[-1][:24], Counter())[r.role.value] += 1
    return {k: dict(v) for k, v in out.items()}

def test_real_sessions_role_counts(fixtures):
    # Counted by hand with jq from the raw files: see the closing note of the inputs issue.
    # fe5e1c67: 95 text + 167 tool_use assistant blocks; 167 tool_result blocks; 8 user texts, 2 of them harness.
    # full-session-four: 22 text + 27 tool_use; 27 tool_result; 6 user strings,
    # 3 of them harness (Caveat, <command-name>, stdout).
    # Codex: assistant = messages + reasoning + function_call; system = session_meta + <environment_context> messages.
    assert roles_per_file(load_project(fixtures / 'transcripts')) == {
        'fe5e1c67-53e7-4862-81ae-': dict(user=6, system=2, assistant=262, tool_result=167),
        'rollout-2025-09-24T20-12': dict(system=2, user=2, assistant=35, tool_result=16),
        'rollout-2025-09-25T08-02': dict(system=3, user=2, assistant=116, tool_result=57),
        'full-session-four.jsonl': dict(system=3, user=3, assistant=49, tool_result=27),
    }

def test_sessions_ordered_by_first_timestamp(fixtures):
    names = [s.path.name[:12] for s in load_project(fixtures / 'transcripts').sessions]
    assert names == ['fe5e1c67-53e', 'rollout-2025', 'rollout-2025', 'full-session']

def test_no_duplicated_tool_output(fixtures):
    p = load_project(fixtures / 'transcripts')
    results = [r for r in p.records() if r.role == Role.tool_result]
    raw_ids = Counter()
    for f in (fixtures / 'transcripts').rglob('*.jsonl'):
        for line in f.read_text().splitlines():
            d = json.loads(line)
            for b in (d.get('message') or {}).get('content') or []:
                if isinstance(b, dict) and b.get('type') == 'tool_result': raw_ids[b['tool_use_id']] += 1
            if d.get('type') == 'response_item' and d['payload'].get('type') == 'function_call_output':
                raw_ids[d['payload']['call_id']] += 1
    assert Counter(r.call_id for r in results) == raw_ids and max(raw_ids.values()) == 1
    # toolUseResult repeats the output in structured form; it must not appear a second time
    assert sum('"stdout"' in r.text for r in results) == 0

def test_inline_sidechains_are_read_run_by_run_each_after_the_call_that_started_it(fixtures):
    session = fixtures / 'transcripts' / 'claude-code' / 'fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl'
    recs = list(load_project(session).records())
    runs = [list(g) for agent, g in groupby(recs, key=lambda r: r.agent) if agent]
    assert len(recs) == 437 and len(runs) == 5 and sum(map(len, runs)) == 405     # five agents, none interleaved
    starts = [i for i, r in enumerate(recs) if r.agent and not recs[i - 1].agent]
    assert all(recs[i - 1].text.startswith('Tool: Task\n') and recs[i].label == '[Agent task: general-purpose]'
               for i in starts)
    main = [r.ts for r in recs if not r.agent]
    assert main == sorted(main)                       # the session's own records: in order

def test_tool_use_pairs_with_result_and_harness_is_system(fixtures):
    recs = list(load_project(fixtures / 'transcripts' / 'claude-code' / 'full-session-four.jsonl').records())
    assert [r.role for r in recs[:3]] == [Role.system, Role.system, Role.system]
    assert recs[0].text.startswith('Caveat: The messages below were generated')   # its child, by parentUuid, is
    assert recs[1].text.startswith('<command-name>/clear</command-name>')        # /clear, stamped 65 ms earlier
    assert recs[2].text.startswith('<local-command-stdout>')
    call = next(r for r in recs if r.text.startswith('Tool: '))
    assert any(r.role == Role.tool_result and r.call_id == call.call_id for r in recs)

def test_claude_21_subagents_progress_and_compaction(tmp_path):
    claude_21_session(tmp_path)
    p = load_project(tmp_path / 'projects')
    assert len(p.sessions) == 1 and [a.name for a in p.sessions[0].agents] == ['agent-a1.jsonl']
    recs = list(p.records())
    got = [(r.role.value, r.text) for r in recs]
    assert got == [
        ('user', 'deploy the shop'),
        ('assistant', 'Tool: Task\n  prompt: check CI'),
        ('user', '(the prompt of the call above)'),
        ('assistant', 'CI fails on a missing env var'),
        ('tool_result', 'CI is red: missing DATABASE_URL'),
        ('system', '(compact_boundary) Conversation compacted'),
        ('system', 'Summary: the user is deploying the shop.'),
        ('system', '<system-reminder>be brief</system-reminder>'),
    ]
    assert [r.agent for r in recs][1:4] == [None, 'general-purpose', 'general-purpose']
    skipped = sum((r.skipped for r in p.warnings.files.values()), Counter())
    assert skipped == Counter({'progress': 1, 'system/turn_duration': 1}) and p.warnings.total == 0

def test_claude_20_flat_agent_file_joins_its_session(tmp_path):
    claude_20_session(tmp_path)
    p = load_project(tmp_path)
    assert len(p.sessions) == 1
    assert [r.text for r in p.records()] == ['why is the api slow?', 'profiling', 'N+1 queries']

def test_codex_custom_tools_compaction_and_placeholders(tmp_path):
    codex_session(tmp_path)
    got = [(r.role.value, r.text) for r in load_project(tmp_path).records()]
    assert got == [
        ('system', '(session) cwd /home/dev/shop, codex 0.60.0, git main abcdef123456'),
        ('system', 'You are Codex.'),
        ('system', '<environment_context><cwd>/home/dev/shop</cwd></environment_context>'),
        ('user', 'apply the patch\n[image omitted, 3 KB]'),
        ('assistant', '(reasoning) **Patching**\n[encrypted reasoning omitted, 1 KB]'),
        ('assistant', 'Tool: apply_patch *** Begin Patch'),
        ('tool_result', 'Done!'),
        ('system', '(compacted) Summary of the session so far'),
    ]

def test_format_is_detected_by_content_not_name(tmp_path):
    f = codex_session(tmp_path)
    g = f.rename(tmp_path / 'claude-looking-name.jsonl')
    assert load_project(g).sessions[0].format == 'codex'

def test_project_by_name_resolves_on_recorded_cwd(tmp_path, monkeypatch):
    claude_21_session(tmp_path / 'claude')
    claude_20_session(tmp_path / 'claude')
    codex_session(tmp_path / 'codex')
    monkeypatch.setenv('CLAUDE_CONFIG_DIR', str(tmp_path / 'claude'))
    monkeypatch.setenv('CODEX_HOME', str(tmp_path / 'codex'))
    p = load_project('shop')
    assert p.name == 'shop' and sorted(s.format for s in p.sessions) == ['claude', 'codex']
    assert len(load_project('/home/dev/api').sessions) == 1
    with pytest.raises(SourceError, match="project 'nothing': no such file or folder"): load_project('nothing')

# One malformed-input test per kind of bad input: each is counted per file, none crashes the load.
def bad_file(tmp_path, tail=b'', rows=None):
    rows = rows or [cc('user', '2026-01-01T00:00:00.000Z', 'hello')]
    return write_jsonl(tmp_path / 's.jsonl', rows, tail)

@pytest.mark.parametrize('tail,warning', [
    (b'{"type":"user","message":{"role":"us', 'truncated last line'),
    (b'this is not json\n' + json.dumps(cc('user', '2026-01-01T00:00:01.000Z', 'again')).encode() + b'\n',
     'non-JSON line'),
    (json.dumps(cc('user', '2026-01-01T00:00:01.000Z', 'caf\udce9')).encode() .replace(b'\\udce9', b'\xe9') + b'\n',
     'invalid UTF-8 (replaced)'),
    (json.dumps(dict(type='hologram', timestamp='2026-01-01T00:00:01.000Z')).encode() + b'\n',
     "unknown record type 'hologram'"),
    (json.dumps(dict(type='user', timestamp='2026-01-01T00:00:01.000Z', uuid='x')).encode() + b'\n',
     'missing field message.content'),
])
def test_malformed_input_is_counted_not_fatal(tmp_path, tail, warning):
    p = load_project(bad_file(tmp_path, tail))
    recs = list(p.records())
    assert recs[0].text == 'hello'
    (rep,) = p.warnings.files.values()
    assert rep.warnings == Counter({warning: 1}), rep.warnings
    assert f"1 {warning}" in p.warnings.summary() and str(rep.path) in p.warnings.summary()

def test_unreadable_file_is_an_error_naming_it(tmp_path):
    f = bad_file(tmp_path)
    p = load_project(f)
    f.unlink()
    with pytest.raises(SourceError, match=f'{f}: cannot read'): list(p.records())
    with pytest.raises(SourceError, match='x.jsonl.: no such file or folder'):
        load_project(tmp_path / 'missing' / 'x.jsonl')
    (tmp_path / 'empty').mkdir()
    with pytest.raises(SourceError, match='no \\*.jsonl session files'): load_project(tmp_path / 'empty')

def test_a_file_in_neither_format_is_reported(tmp_path):
    write_jsonl(tmp_path / 'other.jsonl', [dict(hello='world')])
    codex_session(tmp_path)
    p = load_project(tmp_path)
    assert len(p.sessions) == 1 and 'not a Claude Code or Codex session file' in p.warnings.summary()

def test_oversized_tool_result_is_cut_visibly(tmp_path):
    out = 'HEAD ' + 'x' * 50_000 + ' TAIL'
    f = write_jsonl(tmp_path / 's.jsonl',
                    [cc('user', '2026-01-01T00:00:00.000Z', [dict(type='tool_result', tool_use_id='t', content=out)])])
    (r,) = load_project(f, tool_result_chars=1000).records()
    assert r.text.startswith('HEAD ') and r.text.endswith(' TAIL')
    assert '[... 49,010 characters removed by memgate ...]' in r.text
    assert cut_middle(out, 0) == out     # 0 disables the cap
