"`memgate sync` keeps one managed section of AGENTS.md / CLAUDE.md: idempotent, the rest kept, bounded, no links."
import subprocess, sys
from conftest import FIXTURES, ROOT
from memgate.sync import BEGIN, END, section
from memgate.review import for_agents

LOGS = FIXTURES / 'runs' / 'scripted'

def memgate(*argv):
    r = subprocess.run([sys.executable, '-m', 'memgate.cli', *argv], capture_output=True, text=True, cwd=ROOT)
    return r.returncode, r.stdout, r.stderr

def test_a_second_sync_changes_no_byte_and_says_up_to_date(tmp_path):
    f = tmp_path / 'AGENTS.md'
    every = ('sync', '--log-dir', str(LOGS), '--agents-md', str(f), '--unreviewed')
    assert memgate(*every)[:2] == (0, f"{f}: updated (4 notes)\n")
    first = f.read_bytes()
    assert memgate(*every)[:2] == (0, f"{f}: up to date (4 notes)\n")
    assert f.read_bytes() == first and first.decode().count(BEGIN) == 1

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
    left = 4 - small.count('### Note')
    assert f'({left} more notes left out to stay within 12,000 bytes and 200 lines: memgate show has them)' in small
    short = section(entries, max_lines=40)
    assert short.count('\n') <= 40 and 'more notes left out' in short

def test_check_exits_1_on_a_stale_section_and_writes_nothing(tmp_path):
    f = tmp_path / 'AGENTS.md'
    every = ('sync', '--log-dir', str(LOGS), '--agents-md', str(f), '--unreviewed')
    assert memgate(*every, '--check')[:2] == (1, f"{f}: stale (4 notes)\n")
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
