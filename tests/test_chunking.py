"The chunker on the real sessions: bounded, deterministic, append-only; and the commands that show chunks and prompts."
import json, shutil
from synth import codex_session
from memgate.chunking import chunk_project, chunk_records
from memgate.domain import Record, Role, count_tokens, sha256_text
from memgate.prompt import load_template
from memgate.domain import templates_dir
from memgate.queries import load_queries
from memgate.projects import load_project
from helpers import memgate
from hypothesis import given, settings, strategies as st

def chunks_of(path, **kw): return list(chunk_project(load_project(path), **kw))

def test_every_real_chunk_within_5000_tokens_and_hashed(fixtures):
    cs = chunks_of(fixtures / 'transcripts')
    assert len(cs) == 31 and [c.index for c in cs] == list(range(1, 32))
    for c in cs:
        assert c.tokens == count_tokens(c.text) <= 5000
        assert c.text == '\n\n'.join(r.render() for r in c.records) and c.sha == sha256_text(c.text)
    assert sum(len(c.records) for c in cs) == 752      # every record in exactly one chunk

def test_chunking_is_deterministic(fixtures):
    assert [c.sha for c in chunks_of(fixtures / 'transcripts')] == [c.sha for c in chunks_of(fixtures / 'transcripts')]

def test_smaller_budget_still_bounded(fixtures):
    cs = chunks_of(fixtures / 'transcripts', max_tokens=800)
    assert all(c.tokens <= 800 for c in cs) and any('(part 1/' in c.text for c in cs)

def test_appending_a_session_only_adds_chunks_at_the_end(fixtures, tmp_path):
    shutil.copytree(fixtures / 'transcripts', tmp_path / 'p')
    before = [c.sha for c in chunks_of(tmp_path / 'p')]
    codex_session(tmp_path / 'p' / 'later')          # dated 2026, after every bundled session
    after = [c.sha for c in chunks_of(tmp_path / 'p')]
    assert after[:len(before)] == before and len(after) > len(before)

def test_tool_call_stays_with_its_result():
    filler = Record(Role.user, 'word ' * 3000, 'f', 'a')
    call = Record(Role.assistant, 'Tool: Bash ' + 'y ' * 1500, 'f', 'b', call_id='c')
    result = Record(Role.tool_result, 'z ' * 1000, 'f', 'c', call_id='c')
    cs = list(chunk_records([filler, call, result]))
    assert [[r.ref for r in c.records] for c in cs] == [['a'], ['b', 'c']]

def test_oversized_record_split_at_lines_with_part_markers():
    text = '\n'.join(f'{i:05d} ' + 'log ' * 30 for i in range(2000))
    cs = list(chunk_records([Record(Role.tool_result, text, 'f', 'r')], 5000))
    parts = [r for c in cs for r in c.records]
    n = len(parts)
    assert n > 1 and all(c.tokens <= 5000 for c in cs)
    assert [p.text.split(' ', 2)[:2] for p in parts] == [['(part', f'{i}/{n})'] for i in range(1, n + 1)]
    assert ''.join(p.text.split(') ', 1)[1] for p in parts) == text
    assert all(p.text.split(') ', 1)[1].endswith('\n') for p in parts[:-1])   # cut at line ends

def test_chunks_command_lists_every_chunk_with_warnings_summary(fixtures):
    r = memgate('chunks', '--project', str(fixtures / 'transcripts'))
    lines = r.stdout.splitlines()
    assert r.returncode == 0 and len(lines) == 32 and lines[0].startswith('chunk')   # a header, then the 31
    first = chunks_of(fixtures / 'transcripts')[0]
    assert lines[0].split() == ['chunk', 'tokens', 'records', 'first', 'record', 'at', 'sha']
    assert lines[1].split() == ['1', str(first.tokens), str(len(first.records)), first.first_ts, first.sha[:12]]
    assert r.stderr.strip() == ('4 files, 752 records, 0 warnings; '
                                'skipped 157 event_msg, 7 file-history-snapshot, 1 summary, 77 turn_context')

def test_chunks_json_carries_the_exact_prompt_section(fixtures):
    r = memgate('chunks', '--project', str(fixtures / 'transcripts'), '--format', 'json')
    rows = json.loads(r.stdout)
    assert [row['index'] for row in rows] == list(range(1, 32))
    assert all(sha256_text(row['text']) == row['sha'] and set(row) == {'index', 'sha', 'tokens', 'records', 'first_ts',
                                                                       'source', 'text'} for row in rows)
    p = memgate('prompt', '--project', str(fixtures / 'transcripts'), '--query', 'infra-root-causes', '--chunk', '3')
    assert f"<section> {rows[2]['text']} </section>\n" in p.stdout

def test_prompt_command_matches_template_around_substitutions(fixtures):
    r = memgate('prompt', '--project', str(fixtures / 'transcripts'), '--query', 'infra-root-causes', '--chunk', '1')
    tpl = load_template()
    q = load_queries(templates_dir() / 'queries.toml')['infra-root-causes'].question
    chunk = chunks_of(fixtures / 'transcripts')[0].text
    head, rest = tpl.split('{prompt}')
    mid, rest = rest.split('{memory}')
    mid2, end = rest.split('{chunk}')
    assert r.stdout == head + q + mid + 'No previous memory' + mid2 + chunk + end

def test_prompt_command_errors_name_the_problem(fixtures, tmp_path):
    r = memgate('prompt', '--project', str(fixtures / 'transcripts'), '--query', 'infra-root-causes', '--chunk', '99')
    assert r.returncode == 2 and r.stderr.strip().endswith('no chunk 99 (chunks are numbered from 1)')
    assert 'Traceback' not in r.stderr
    bad = tmp_path / 'q.toml'
    bad.write_text('[x]\nquestion = 3\n')
    r = memgate('prompt', '--project', str(fixtures / 'transcripts'), '--query', 'x', '--chunk', '1', '--queries',
                str(bad))
    assert r.returncode == 2 and f'{bad}: query [x]: `question` must be a non-empty string' in r.stderr

DENSE = st.sampled_from(['😀🚀🧪🔥', '漢字仮名交じり文', 'QUJDREVGR0hJSktMTU5PUA==+/', '0123456789', 'é', ' ', 'ab'])

@settings(max_examples=40, deadline=None)
@given(st.lists(DENSE, min_size=1, max_size=6), st.integers(2_000, 40_000), st.booleans())
def test_no_text_is_dense_enough_to_overflow_a_chunk(alphabet, length, lines):
    "Emoji, CJK, base64 and digit runs, in one long line or many: every chunk stays within the 5000-token bound."
    unit = ''.join(alphabet)
    text = (unit * (length // len(unit) + 1))[:length]
    if lines: text = '\n'.join(text[i:i + 700] for i in range(0, len(text), 700))
    recs = [Record(Role.user, 'look at this output', 'f', 'a'), Record(Role.tool_result, text, 'f', 'b')]
    chunks = list(chunk_records(recs, 5000))
    assert all(c.tokens <= 5000 and count_tokens(c.text) <= 5000 for c in chunks)
    parts = [r.text for c in chunks for r in c.records if r.ref.startswith('b')]
    assert ''.join(p.split(') ', 1)[1] if len(parts) > 1 else p for p in parts) == text      # nothing lost

def test_chunks_show_what_a_terminal_showed_and_codex_output_as_text(fixtures):
    cs = chunks_of(fixtures / 'transcripts')
    assert not any('\x1b' in c.text for c in cs)                        # no escape sequence reaches a chunk
    assert not any('{"output":"' in c.text for c in cs)                 # Codex 0.40's JSON envelopes are opened
    assert any('(exit 0)\n' in c.text for c in cs)                      # and their exit codes stay visible
    assert not any('"content": "' in c.text and '\\n' in c.text.split('"content": "')[1][:200] for c in cs)
