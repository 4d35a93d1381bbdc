"""Issue 50 moved code between modules and changed no behaviour: the bundled runs made again give, record for
record, the logs the head before it (3a86b31) wrote, but for run ids, timestamps, timings and hash links.
tests/same_logs.py makes them; tests/data/logs_before_issue50.json.gz holds the earlier head's. The sha of the
default secret rules, which issue 48 goes on editing, is left out of the comparison: every chunk's sha and text, and
so what the rules did to the bundled sessions, is still compared. So is the `project_id` run_start records since issue
52 (a field added, nothing else of the record changed)."""
import gzip, json
from pathlib import Path
from same_logs import make, normalised

BEFORE = Path(__file__).parent / 'data' / 'logs_before_issue50.json.gz'

def without_rules_sha(logs: dict) -> dict:
    "`logs` with their run_start's sha of the default rule file, and its project id, left out."
    for records in logs.values():
        for r in records:
            r.get('config', {}).pop('default_rules', None)
            r.pop('project_id', None)
    return logs

def test_the_bundled_runs_write_the_logs_they_wrote_before_issue_50(tmp_path):
    make(tmp_path)
    now, before = (without_rules_sha(normalised(tmp_path)),
                   without_rules_sha(json.loads(gzip.decompress(BEFORE.read_bytes()))))
    assert sorted(now) == sorted(before)
    for name in before:
        assert len(now[name]) == len(before[name]), name
        for i, (a, b) in enumerate(zip(now[name], before[name])): assert a == b, f'{name} line {i + 1}'
