"""What was sent before a rule knew it (issue 48 item 11): `memgate rotate` names, per log, the values the current
rules take in what it holds, and `--scrub` replaces the log by a new chain that verifies and holds none of them."""
from synth import cc, write_jsonl
from helpers import memgate as run
from memgate.log import read_log, verify

def memgate(*argv):
    r = run(*map(str, argv))
    return r.returncode, r.stdout, r.stderr

PASSWORD = 'tulip!harbor2024'      # a person's choice: no generator capitalises words so (`memorable`)

def session(proj, sid, ts, text):
    return write_jsonl(proj / f'{sid}.jsonl', [cc('user', ts, 'the deploy failed again, find the root cause', sid=sid),
                                              cc('assistant', ts.replace(':00.', ':05.'),
                                                 [dict(type='text', text=text)], sid=sid)])

def logged_before_the_value_was_known(tmp_path):
    "A log written when the project's one session named the password in prose only, then a session that reveals it."
    proj = tmp_path / 'shop'
    session(proj, 'S1', '2026-03-01T10:00:00.000Z', f"Root cause: the deploy failed with a timeout because the "
            f"staging box was switched to {PASSWORD} and the worker could not log in; fix: restart the worker.")
    code, out, err = memgate('ingest', '--project', proj, '--model', 'keyword-baseline', '--query', 'infra-root-causes',
                             '--log-dir', tmp_path / 'runs')
    assert code == 0, err
    log = tmp_path / 'runs' / 'shop' / 'infra-root-causes.jsonl'
    assert PASSWORD in log.read_text()           # rules alone did not know it then
    session(proj, 'S2', '2026-03-02T10:00:00.000Z', f"Set it in the env file: export DB_PASSWORD='{PASSWORD}'")
    return proj, log

def test_rotate_names_the_value_sent_with_its_turn_masked_and_exits_1(tmp_path):
    proj, log = logged_before_the_value_was_known(tmp_path)
    before = log.read_bytes()
    code, out, err = memgate('rotate', '--project', proj, log)
    assert code == 1, err
    head, value = out.splitlines()[:2]
    assert head == (f"{log}: 1 value the current rules take, in 1 turn: sent before memgate knew them; rotate them")
    assert value.startswith('  tuli…(16 chars)  password') and 't=1 (' in value and 'evidence' in value
    assert PASSWORD not in out + err and log.read_bytes() == before      # said, masked; nothing written

def test_scrub_writes_a_chain_that_verifies_names_the_old_head_and_holds_no_value(tmp_path):
    proj, log = logged_before_the_value_was_known(tmp_path)
    old_head = verify(log).head
    code, out, err = memgate('rotate', '--scrub', '--project', proj, log)
    assert code == 0, err
    v = verify(log)
    assert v.ok and f'a scrubbed copy of the log whose head was {old_head[:12]}' in v.message
    first = read_log(log).events[0]
    assert first['scrubbed'][0]['head'] == old_head and first['scrubbed'][0]['replacements'] >= 2
    assert PASSWORD not in log.read_text() and '[REDACTED:password]' in log.read_text()
    kept = log.with_name(f'{log.name}.pre-scrub-{old_head[:12]}')
    assert PASSWORD in kept.read_text() and f'the old log still holds them: {kept}' in out
    # what memgate serves from logs now comes from the scrubbed copy
    code, shown, _ = memgate('show', log)
    assert code == 0 and PASSWORD not in shown
    clean = memgate('rotate', '--project', proj, tmp_path / 'runs')
    assert clean[:2] == (0, f"{log}: nothing the current rules take\n")

def test_a_log_that_fails_verify_is_passed_over_not_scrubbed(tmp_path):
    proj, log = logged_before_the_value_was_known(tmp_path)
    log.write_text(log.read_text().replace('timeout', 'timeouT', 1))
    edited = log.read_bytes()
    code, out, err = memgate('rotate', '--scrub', '--project', proj, log)
    assert code == 1 and err.startswith(f"{log}:") and 'not looked at' in err and 'verifies' in err
    assert log.read_bytes() == edited and len(list(log.parent.iterdir())) == 1

def test_a_log_written_before_the_index_grew_resumes_and_says_rotate(tmp_path):
    """Issue 48: a resume across the change. The old session's chunk now reads with the password redacted; the turn
    is accepted (only a value found since changed it), the new session is read on, and the run says rotate."""
    proj, log = logged_before_the_value_was_known(tmp_path)
    start = read_log(log).events[0]
    assert len(start['index']) == 32                   # the index's digest, as it was then
    code, out, err = memgate('ingest', '--project', proj, '--model', 'keyword-baseline', '--query', 'infra-root-causes',
                             '--log-dir', tmp_path / 'runs', '--resume')
    assert code == 0, err
    assert (f"{log}: 1 turn (t=1) sent 1 value found since to be secret: rotate them (memgate rotate {log} names "
            "them; --scrub takes them out of the log)") in err
    events = read_log(log).events
    starts = [e for e in events if e['kind'] == 'run_start']
    assert len(starts) == 2 and starts[1]['index'] != starts[0]['index'] and verify(log).ok
    assert max(e['t'] for e in events if e['kind'] == 'gate') == 2      # the new session's turn, numbered on
    assert PASSWORD not in ''.join(e.get('text', '') for e in events if e['kind'] == 'evidence' and e['t'] == 2)

def test_a_session_edited_in_place_is_still_refused_on_resume(tmp_path):
    proj, log = logged_before_the_value_was_known(tmp_path)
    first = proj / 'S1.jsonl'
    first.write_text(first.read_text().replace('restart the worker', 'restart the broker'))
    code, out, err = memgate('ingest', '--project', proj, '--model', 'keyword-baseline', '--query', 'infra-root-causes',
                             '--log-dir', tmp_path / 'runs', '--resume')
    assert code == 1 and f"{first} changed other than by appending: turn t=1 read it differently" in err
