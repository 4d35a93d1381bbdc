"""What writing the notebooks' examples found wrong (issue 29's closing note): one test per thing, each through the
command a user types, asserting the bytes it prints."""
import json, shutil
from conftest import FIXTURES
from helpers import memgate
from memgate.labels import LabelError, turn_gates
from memgate.testing import FakeServer
import pytest
from memgate.show import learned

PROJECT = FIXTURES / 'transcripts'

def test_a_base_url_given_as_the_chat_url_reaches_the_server_at_that_url_not_the_path_twice(tmp_path):
    with FakeServer() as s:
        r = memgate('ingest', '--project', PROJECT, '--query', 'conventions', '--limit', '1', '--quiet',
                    '--model', 'test-model', '--base-url', s.url + '/chat/completions', '--log-dir', tmp_path)
        paths = list(s.paths)
    assert r.returncode == 0, r.stderr
    assert paths and set(paths) == {'/v1/chat/completions'}, paths

def test_answer_on_a_models_log_without_a_model_gives_advice_that_works(tmp_path):
    log = tmp_path / 'infra-root-causes.jsonl'
    shutil.copy(FIXTURES / 'runs' / 'scripted' / 'transcripts' / log.name, log)
    for extra in ((), ('--model', 'keyword-baseline')):
        r = memgate('answer', log, '--again', *extra)
        assert r.returncode == 1 and r.stdout == ''
        assert r.stderr.splitlines() == [
            f"{log}: not answered: a model's log is answered by a model: pass --base-url URL and --model NAME "
            "(or set MEMGATE_BASE_URL and MEMGATE_MODEL); the keyword baseline answers its own logs only, and "
            f"`memgate show {log}` prints the memory"]
    shown = memgate('show', log)                              # the advice, followed
    assert shown.returncode == 0 and learned(log).memory in shown.stdout

def test_the_reading_summary_says_one_file_and_one_warning_in_the_singular(tmp_path):
    one = tmp_path / 'p' / 's1.jsonl'
    one.parent.mkdir()
    one.write_text('{"type": "user", "sessionId": "s1", "timestamp": "2026-03-01T10:00:00Z", "uuid": "u1", '
                   '"message": {"role": "user", "content": "fix the build"}}\nnot json\n')
    r = memgate('chunks', '--project', one.parent)
    assert r.returncode == 0, r.stderr
    assert r.stderr.splitlines()[-1] == '1 file, 1 record, 1 warning'

def test_turn_gates_of_events_with_no_run_start_is_a_label_error_not_stop_iteration():
    with pytest.raises(LabelError) as e: turn_gates([])
    assert str(e.value) == "no run_start among the events: they are not a run's log"

def test_answer_of_a_query_over_a_folder_with_a_file_that_is_no_log_answers_the_rest_and_names_it(tmp_path):
    shutil.copytree(FIXTURES / 'runs' / 'baseline', tmp_path / 'runs')
    notes = tmp_path / 'runs' / 'notes.jsonl'
    notes.write_text('not a log\n')
    r = memgate('answer', tmp_path / 'runs', '--query', 'conventions')
    log = tmp_path / 'runs' / 'transcripts' / 'conventions.jsonl'
    assert r.returncode == 1 and r.stderr.splitlines() == [f"{notes}:1: not answered: not JSON (Expecting value)"]
    assert r.stdout.startswith(f"== {log} (its memory: keyword baseline)\n{learned(log).memory}\n")

def test_show_and_stats_over_a_folder_with_a_broken_file_show_the_rest_name_it_and_exit_1(tmp_path):
    shutil.copytree(FIXTURES / 'runs' / 'baseline', tmp_path / 'runs')
    notes = tmp_path / 'runs' / 'notes.jsonl'
    notes.write_text('not a log\n')
    logs = sorted((tmp_path / 'runs' / 'transcripts').glob('*.jsonl'))
    shown = memgate('show', tmp_path / 'runs')
    assert shown.returncode == 1 and shown.stderr == f"{notes}:1: not shown: not JSON (Expecting value)\n"
    heads = [line.split('  ')[-1] for line in shown.stdout.splitlines() if line.startswith('== ')]
    assert heads == list(map(str, logs))
    as_json = memgate('show', tmp_path / 'runs', '--format', 'json')
    assert as_json.returncode == 1 and [x['log'] for x in json.loads(as_json.stdout)] == list(map(str, logs))
    counted = memgate('stats', tmp_path / 'runs', '--format', 'json')
    assert counted.returncode == 1 and counted.stderr == f"{notes}:1: not counted: not JSON (Expecting value)\n"
    assert [r['log'] for r in json.loads(counted.stdout)] == list(map(str, logs))
