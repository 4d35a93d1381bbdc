"""Any input, bounded (issue 18, item 5): deep nesting, a BOM, a line too long to hold; each ends in a counted
warning naming the file and line, or one clear line, with memory bounded."""
import json, subprocess, sys
from conftest import FIXTURES
from helpers import clean_env, memgate

Q = 'infra-root-causes'

def record(i, text='the deploy failed with an error'):
    return json.dumps(dict(type='user', sessionId='s1', uuid=f'u{i}', timestamp=f'2025-01-01T00:00:0{i}Z', cwd='/p',
                           message=dict(role='user', content=text))).encode() + b'\n'

def peak_rss_mb(*args) -> tuple[subprocess.CompletedProcess, float]:
    "`memgate ARGS` in a child process, and the child's peak RSS in MB."
    probe = ("import resource, subprocess, sys; r = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
             "sys.stdout.write(r.stdout); sys.stderr.write(r.stderr); "
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); sys.exit(r.returncode)")
    r = subprocess.run([sys.executable, '-c', probe, sys.executable, '-m', 'memgate.cli', *map(str, args)],
                       capture_output=True, text=True, env=clean_env(), timeout=300)
    return r, int(r.stderr.splitlines()[-1]) / 1024

def test_a_line_nested_deeper_than_the_parser_goes_is_a_counted_warning(tmp_path):
    f = tmp_path / 's1.jsonl'
    f.write_bytes(record(1) + b'[' * 100_000 + b'\n' + record(2))
    for cmd in (('chunks', '--project', f), ('prompt', '--project', f, '--query', Q, '--chunk', 1)):
        r = memgate(*cmd)
        assert r.returncode == 0 and 'Traceback' not in r.stderr, r.stderr
    r = memgate('ingest', '--project', f, '--model', 'keyword-baseline', '--query', Q, '--log-dir', tmp_path / 'runs')
    assert r.returncode == 0 and '1 JSON nested too deeply (first at line 2)' in r.stderr, r.stderr

def test_a_log_line_nested_too_deeply_fails_verify_in_one_line(tmp_path):
    log = tmp_path / 'p' / f'{Q}.jsonl'
    log.parent.mkdir()
    log.write_bytes(b'[' * 100_000 + b'\n')
    for cmd in ('verify', 'stats', 'show'):
        r = memgate(cmd, log)
        out = r.stdout + r.stderr
        assert r.returncode != 0 and 'Traceback' not in out and len(out.splitlines()) == 1, (cmd, out)
        assert f'{log}:1' in out and 'JSON nested deeper than any event' in out, (cmd, out)

def test_a_log_nested_too_deeply_in_the_log_folder_does_not_stop_a_run_choosing_its_folder(tmp_path):
    "project_folder read each log's first line with json and caught ValueError only: a RecursionError got out."
    from memgate.ingest import project_folder
    from memgate.projects import Project
    bad = tmp_path / 'runs' / 'workspace' / 'q'
    bad.mkdir(parents=True)
    (bad / '2025-10.jsonl').write_bytes(b'[' * 100_000 + b'\n')
    assert project_folder(tmp_path / 'runs', Project('workspace', [], None, source='/w/workspace')) == 'workspace'

def test_a_bom_does_not_cost_the_first_record(tmp_path):
    f = tmp_path / 's1.jsonl'
    f.write_bytes(b'\xef\xbb\xbf' + record(1) + record(2, 'and the retry failed too'))
    r = memgate('chunks', '--project', f, '--format', 'json')
    assert r.returncode == 0 and json.loads(r.stdout)[0]['records'] == 2, r.stdout + r.stderr

def test_a_line_too_long_to_hold_is_skipped_with_its_line_named_and_memory_bounded(tmp_path):
    f = tmp_path / 's1.jsonl'
    with open(f, 'wb') as out:
        out.write(record(1))
        out.write(b'{"type": "user", "x": "' + b'y' * (200 << 20) + b'"}\n')      # a 200 MB line
        out.write(record(2))
    r, mb = peak_rss_mb('chunks', '--project', f)
    print(f"peak RSS {mb:.0f} MB over a 200 MB line")
    assert r.returncode == 0 and '1 line over 32 MB skipped (first at line 2)' in r.stderr and mb < 250, r.stderr

def test_malformed_queries_and_labels_are_one_line_naming_the_file(tmp_path):
    deep = tmp_path / 'deep.toml'
    deep.write_text('q = ' + '[' * 100_000 + ']' * 100_000)
    r = memgate('ingest', '--project', tmp_path, '--model', 'keyword-baseline', '--queries', deep)
    assert r.returncode == 2 and r.stderr == f"memgate ingest: error: {deep}: nested deeper than any query file\n"
    log = FIXTURES / 'runs' / 'baseline' / 'transcripts' / f'{Q}.jsonl'
    for body, said in [('chunk = 5', '`chunk` must be [[chunk]] tables, not 5'),
                       ('[[chunk]]\nindex = 0\nsha = "x"\nrelevant = true', '`index` counts chunks from 1, not 0'),
                       ('q = ' + '[' * 100_000 + ']' * 100_000, 'nested deeper than any labels file'),
                       (b'project = "\xff"', 'not UTF-8 text (byte 11)')]:
        labels = tmp_path / 'labels' / 'transcripts' / f'{Q}.toml'
        labels.parent.mkdir(parents=True, exist_ok=True)
        head = f'project = "transcripts"\nquery = "{Q}"\n'
        labels.write_bytes(body if isinstance(body, bytes) else (head + body).encode())
        r = memgate('eval', log, '--labels', tmp_path / 'labels')
        assert r.returncode == 2 and said in r.stderr and len(r.stderr.splitlines()) == 1, r.stderr

def test_many_queries_never_exhaust_file_descriptors(tmp_path):
    "600 queries keep 1,200 files open (a log and a lock each): past a soft limit of 1,024 (EMFILE, a traceback)."
    import resource
    queries = tmp_path / 'q.toml'
    queries.write_text(''.join(f'[q{i}]\nquestion = "What failed, part {i}?"\nkeywords = ["error"]\n'
                               for i in range(600)))
    cmd = [sys.executable, '-m', 'memgate.cli', 'ingest', '--project', str(FIXTURES / 'transcripts'), '--model',
           'keyword-baseline', '--queries', str(queries), '--limit', '1', '--quiet']
    def limit(soft, hard): return lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    r = subprocess.run([*cmd, '--log-dir', str(tmp_path / 'a')], capture_output=True, text=True, env=clean_env(),
                       preexec_fn=limit(1024, hard), timeout=300)
    assert r.returncode == 0 and r.stdout.count('  complete') == 600, r.stderr[-2000:]
    r = subprocess.run([*cmd, '--log-dir', str(tmp_path / 'b')], capture_output=True, text=True, env=clean_env(),
                       preexec_fn=limit(512, 512), timeout=300)
    assert r.returncode == 2 and r.stderr == ("memgate ingest: error: 600 queries keep 1200 files open, but this "
                                              "process may open 512 (ulimit -Hn): run fewer queries at once\n")

def test_labels_of_chunks_no_run_read_are_said_not_silently_dropped(tmp_path):
    labels = tmp_path / 'labels' / 'transcripts' / f'{Q}.toml'
    labels.parent.mkdir(parents=True)
    labels.write_text(f'project = "transcripts"\nquery = "{Q}"\n' + ''.join(
        f'\n[[chunk]]\nindex = {i}\nsha = "{"0" * 64}"\nrelevant = true\n' for i in (40, 41, 42)))
    log = FIXTURES / 'runs' / 'baseline' / 'transcripts' / f'{Q}.jsonl'      # 31 turns
    r = memgate('eval', log, '--labels', tmp_path / 'labels')
    assert r.returncode == 0, r.stderr
    assert 'labels of chunks 40-42 name chunks no run read: not scored' in r.stdout

def test_many_files_with_the_same_warning_are_named_three_times_then_counted(tmp_path):
    "100,000 empty session files printed 100,000 warning lines."
    from helpers import memgate
    folder = tmp_path / 'sessions'
    folder.mkdir()
    for i in range(40): (folder / f'empty-{i:02d}.jsonl').write_bytes(b'')
    (folder / 'one.jsonl').write_text('{"type":"user","sessionId":"s","uuid":"u","timestamp":"2025-01-01T00:00:00Z",'
                                      '"message":{"role":"user","content":"the deploy failed"}}\n')
    r = memgate('chunks', '--project', folder)
    warned = [line for line in r.stderr.splitlines() if line.startswith('warning: ')]
    assert r.returncode == 0 and len(warned) == 4, r.stderr
    assert warned[-1] == 'warning: 37 more files with empty file' and all('empty-' in w for w in warned[:3])
