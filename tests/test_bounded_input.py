"""Any input, bounded (issue 18, item 5): deep nesting, a BOM, a line too long to hold; each ends in a counted
warning naming the file and line, or one clear line, with memory bounded."""
import json, subprocess, sys
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

def test_a_bom_does_not_cost_the_first_record(tmp_path):
    f = tmp_path / 's1.jsonl'
    f.write_bytes(b'\xef\xbb\xbf' + record(1) + record(2, 'and the retry failed too'))
    r = memgate('chunks', '--project', f, '--format', 'json')
    assert r.returncode == 0 and json.loads(r.stdout.splitlines()[0])['records'] == 2, r.stdout + r.stderr

def test_a_line_too_long_to_hold_is_skipped_with_its_line_named_and_memory_bounded(tmp_path):
    f = tmp_path / 's1.jsonl'
    with open(f, 'wb') as out:
        out.write(record(1))
        out.write(b'{"type": "user", "x": "' + b'y' * (200 << 20) + b'"}\n')      # a 200 MB line
        out.write(record(2))
    r, mb = peak_rss_mb('chunks', '--project', f)
    print(f"peak RSS {mb:.0f} MB over a 200 MB line")
    assert r.returncode == 0 and '1 line over 32 MB skipped (first at line 2)' in r.stderr and mb < 250, r.stderr
