"`memgate sync` keeps one managed section of AGENTS.md / CLAUDE.md: idempotent, the rest kept, bounded, no links."
import json, re, shlex, shutil, subprocess, sys
from conftest import FIXTURES, ROOT
from hypothesis import HealthCheck, given, settings, strategies as st
from memgate.sync import BEGIN, END, fit, section, section_of, summary
from memgate.review import for_agents

LOGS = FIXTURES / 'runs' / 'scripted'
QUERIES = ('build-and-test-failures', 'conventions', 'design-decisions', 'infra-root-causes')

def memgate(*argv):
    r = subprocess.run([sys.executable, '-m', 'memgate.cli', *argv], capture_output=True, text=True, cwd=ROOT)
    return r.returncode, r.stdout, r.stderr

def test_a_second_sync_changes_no_byte_and_says_up_to_date(tmp_path):
    f = tmp_path / 'AGENTS.md'
    every = ('sync', '--log-dir', str(LOGS), '--agents-md', str(f), '--unreviewed')
    held = ("3 notes; 1 left out to stay within 32,768 bytes and 200 lines: transcripts/infra-root-causes "
            "(memgate show has them)")
    assert memgate(*every)[:2] == (0, f"{f}: updated ({held})\n")
    first = f.read_bytes()
    assert memgate(*every)[:2] == (0, f"{f}: up to date ({held})\n")
    assert f.read_bytes() == first and first.decode().count(BEGIN) == 1 and first.decode().count('### Note ') == 3

def test_text_outside_the_markers_is_kept_byte_for_byte(tmp_path):
    f = tmp_path / 'CLAUDE.md'
    before, after = '# Project\r\n\r\nUse `uv run` — never pip.\n\n', '\n## Later notes\n\ttabbed\n'
    f.write_bytes((before + BEGIN + '\nstale\n' + END + '\n' + after).encode())
    assert memgate('sync', '--log-dir', str(LOGS), '--claude-md', str(f), '--unreviewed')[0] == 0
    text = f.read_bytes().decode()
    assert text.startswith(before + BEGIN) and text.endswith(END + '\n' + after)
    assert 'stale' not in text and 'query: build-and-test-failures (project transcripts)' in text

def test_the_section_stays_within_its_bound_and_says_what_it_left_out():
    entries = for_agents(LOGS, unreviewed=True)[0]
    whole = section(entries)
    assert len(whole.encode()) <= 32 * 1024 and whole.count('\n') <= 200
    small = section(entries, max_bytes=12000)
    assert len(small.encode()) <= 12000 and small.count('### Note') >= 1
    left = [q for q in QUERIES if f'query: {q} ' not in small]
    assert len(left) == 4 - small.count('### Note') and (f'{len(left)} notes left out to stay within 12,000 bytes '
                                                         'and 200 lines; the command that shows each:') in small
    for q in left: assert f'transcripts/{q}, not reviewed: memgate show {LOGS}/transcripts/{q}.jsonl\n' in small
    short = section(entries, max_lines=40)
    assert short.count('\n') <= 40 and 'notes left out' in short

def test_check_exits_1_on_a_stale_section_and_writes_nothing(tmp_path):
    f = tmp_path / 'AGENTS.md'
    every = ('sync', '--log-dir', str(LOGS), '--agents-md', str(f), '--unreviewed')
    held = ("3 notes; 1 left out to stay within 32,768 bytes and 200 lines: transcripts/infra-root-causes "
            "(memgate show has them)")
    assert memgate(*every, '--check')[:2] == (1, f"{f}: stale ({held})\n")
    assert not f.exists()
    memgate(*every)
    assert memgate(*every, '--check')[0] == 0
    f.write_text(f.read_text().replace('### Note 2', '### edited by hand'))
    edited = f.read_bytes()
    assert memgate(*every, '--check')[0] == 1
    assert f.read_bytes() == edited

def test_a_symlinked_target_is_refused_and_its_file_untouched(tmp_path):
    real, link = tmp_path / 'real.md', tmp_path / 'AGENTS.md'
    real.write_text('mine\n')
    link.symlink_to(real)
    code, out, err = memgate('sync', '--log-dir', str(LOGS), '--agents-md', str(link))
    assert (code, err) == (2, f"memgate sync: error: {link} is a symbolic link: memgate writes no file through one "
                              "(move it away)\n")
    assert real.read_text() == 'mine\n'

def test_a_marker_inside_a_memory_cannot_end_the_section(tmp_path):
    e = dict(for_agents(LOGS, unreviewed=True)[0][0], memory='- see ``` and ' + END + ' here')
    s = section([e])
    assert s.count(END) == 1 and s.endswith(END + '\n')

def test_a_log_that_does_not_verify_stops_the_sync_in_one_line_and_the_file_is_untouched(tmp_path):
    logs = tmp_path / 'runs'
    (logs / 'p').mkdir(parents=True)
    lines = (LOGS / 'transcripts' / 'conventions.jsonl').read_text().splitlines(True)
    (logs / 'p' / 'conventions.jsonl').write_text(''.join(lines[:3]) + lines[3].replace('"t":', '"t": ', 1)
                                                 + ''.join(lines[4:]))
    f = tmp_path / 'AGENTS.md'
    f.write_text('mine\n')
    code, out, err = memgate('sync', '--log-dir', str(logs), '--agents-md', str(f))
    assert code == 2 and err.startswith('memgate sync: error: ') and 'the log does not verify' in err
    assert err.count('\n') == 1 and f.read_text() == 'mine\n'

def test_naming_no_file_is_one_line_that_says_what_to_name():
    assert memgate('sync', '--log-dir', str(LOGS)) == \
        (2, '', 'memgate sync: error: name a file: --agents-md AGENTS.md and/or --claude-md CLAUDE.md\n')

# ---------------------------------------------------------------- issue 49: what a person approved comes first

def approved_runs(tmp_path, *queries):
    "A copy of the scripted logs in `tmp_path` whose memories of `queries` ada approved (through the CLI)."
    runs = tmp_path / 'runs'
    shutil.copytree(LOGS, runs)
    listed = memgate('review', '--log-dir', str(runs))[1]
    for q in queries:
        sha = re.search(rf'== transcripts/{q}: memory ([0-9a-f]{{12}})', listed)[1]
        assert memgate('review', '--log-dir', str(runs), '--approve', sha, '--by', 'ada')[0] == 0
    return runs

def test_an_approved_note_goes_before_unreviewed_ones_and_the_count_printed_is_the_notes_in_the_file(tmp_path):
    runs, f = approved_runs(tmp_path, 'conventions'), tmp_path / 'CLAUDE.md'
    f.write_text('# P\n\n')
    code, out, _ = memgate('sync', '--log-dir', str(runs), '--claude-md', str(f), '--unreviewed', '--max-lines', '120')
    text = f.read_text()
    written = re.findall(r'^query: (\S+) ', text, re.M)
    left = [q for q in QUERIES if q not in written]
    # the approved note first and whole; unreviewed ones only in the room left, and some are left out
    assert code == 0 and written[0] == 'conventions' and 'reviewed by ada (memory e4bc0f16004c)' in text
    assert len(written) < 4 and text.count('### Note ') == len(written) and f'### Note 1 of {len(written)}\n' in text
    # the count printed is the count written, and each note left out is named: on screen and in the section
    assert out == (f"{f}: updated ({len(written)} notes; {len(left)} left out to stay within 32,763 bytes and "
                   f"118 lines: {', '.join('transcripts/' + q for q in left)} (memgate show has them))\n")
    for q in left: assert f"transcripts/{q}, not reviewed: memgate show {runs}/transcripts/{q}.jsonl\n" in text
    assert memgate('sync', '--log-dir', str(runs), '--claude-md', str(f), '--unreviewed', '--max-lines', '120',
                   '--check')[0] == 0

def memory_of(log) -> list[str]:
    "The lines of the memory `memgate show LOG --format json` gives."
    code, out, _ = memgate('show', str(log), '--format', 'json')
    return json.loads(out)[0]['memory'].split('\n')

def test_an_approved_memory_longer_than_the_window_is_cut_at_whole_lines_and_says_how_to_see_it_whole(tmp_path):
    runs, f = approved_runs(tmp_path, 'infra-root-causes'), tmp_path / 'CLAUDE.md'
    every = ('sync', '--log-dir', str(runs), '--claude-md', str(f), '--max-lines', '50')
    code, out, _ = memgate(*every)
    text = f.read_text()
    whole = memory_of(runs / 'transcripts' / 'infra-root-causes.jsonl')
    # the memory's first lines, verbatim, then the line saying it is cut: nothing else stands in for the rest
    fenced = text.split('\nmemory:\n', 1)[1].split('\n```\n', 1)[0].split('\n')
    n = len(fenced)
    assert code == 0 and 0 < n < len(whole) and fenced == whole[:n]
    assert out.split('\n')[0] == (f"{f}: updated (1 note; cut to fit: transcripts/infra-root-causes, {n} of "
                                   f"{len(whole)} lines)")
    assert (f"Note 1 is cut to stay within the window: above are the first {n} of its memory's {len(whole)} lines. "
            "This shows the whole memory:\n\n```text\nmemgate show " in text)
    # the command the section gives shows the whole memory
    cmd = text.split('This shows the whole memory:\n\n```text\n', 1)[1].split('\n', 1)[0]
    assert cmd == f"memgate show {runs}/transcripts/infra-root-causes.jsonl"
    assert memory_of(shlex.split(cmd)[2]) == whole
    assert len(text.encode()) <= 32 * 1024 and text.split(END)[0].count('\n') < 50
    # byte-stable, and --check agrees
    first = f.read_bytes()
    assert memgate(*every)[:2] == (0, out.replace(': updated (', ': up to date (', 1))
    assert f.read_bytes() == first and memgate(*every, '--check')[0] == 0

@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.booleans(), st.integers(1, 40)), min_size=1, max_size=6), st.integers(20, 200),
       st.sampled_from(['\n', '\r\n']))
def test_any_window_holds_the_approved_notes_first_cut_at_whole_lines_and_names_every_note_left_out(shape, lines, eol):
    base = for_agents(LOGS, unreviewed=True)[0][0]
    entries = [dict(base, query=f'q{i}', log=f'runs/p/q{i}.jsonl', reviewed=ok, by='ada', marks=[],
                    memory='\n'.join(f'- fact {j} of q{i}' for j in range(n))) for i, (ok, n) in enumerate(shape)]
    f = fit(entries, True, 4000, lines, eol)
    s = section_of(f, True)
    written = [e['query'] for e, _ in f.notes]
    # every note is written or named as left out, and the count is the file's
    assert sorted(written + [e['query'] for e in f.left]) == sorted(e['query'] for e in entries)
    assert s.count('### Note ') == len(f.notes) and summary(f).startswith(f"{len(f.notes)} note")
    for e in f.left: assert f"transcripts/{e['query']}, " in s and f"memgate show runs/p/{e['query']}.jsonl\n" in s
    if f.notes: assert len(s.encode()) + (len(eol) - 1) * s.count('\n') <= 4000 and s.count('\n') <= lines
    # approved first; a note nobody approved only once every approved one is written; only approved ones cut
    ranks = [not e['reviewed'] for e, _ in f.notes]
    assert ranks == sorted(ranks)
    if any(ranks): assert not any(e['reviewed'] for e in f.left)
    for e, k in f.notes:
        body = s.split(f"query: {e['query']} ", 1)[1].split('\nmemory:\n', 1)[1].split('\n```\n', 1)[0]
        assert body == ('\n'.join(e['memory'].split('\n')[:k]) if k else e['memory'])
        assert (k is None or (e['reviewed'] and 0 < k < len(e['memory'].split('\n'))))
