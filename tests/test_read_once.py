"""A run reads the project once, whatever the number of queries (issue 13): every session file is opened twice per run,
once to sniff its first lines (format, start time, cwd) and once to read it, with 4 queries as with 1, fresh or resumed.
"""
import json, shutil, subprocess, sys
from collections import Counter
from conftest import FIXTURES
from memgate.testing import FakeServer
from memgate.log import verify
from helpers import clean_env

COUNTING = """
import atexit, json, sys
from collections import Counter
opened = Counter()
def hook(event, args):
    if event == 'open' and isinstance(args[0], str) and args[0].startswith(project):
        opened[args[0]] += 1
sys.addaudithook(hook)
out, project = sys.argv.pop(1), sys.argv.pop(1)
atexit.register(lambda: open(out, 'w').write(json.dumps(opened)))
from memgate.cli import main
sys.exit(main(sys.argv[1:]))
"""

def ingest_counting_opens(tmp_path, s, *args) -> Counter:
    "Run `memgate ingest` over tmp_path/proj with every query; how often each session file was opened."
    counts = tmp_path / 'opened.json'
    r = subprocess.run([sys.executable, '-c', COUNTING, str(counts), str(tmp_path / 'proj') + '/', 'ingest',
                        '--project', str(tmp_path / 'proj'), '--base-url', s.url, '--model', 'test-model',
                        '--log-dir', str(tmp_path / 'runs'), *args],
                       capture_output=True, text=True, timeout=300, env=clean_env())
    assert r.returncode == 0, r.stderr
    return Counter(json.loads(counts.read_text()))

def test_four_queries_read_each_session_file_once(tmp_path):
    shutil.copytree(FIXTURES / 'transcripts', tmp_path / 'proj')
    files = sorted(str(f) for f in (tmp_path / 'proj').rglob('*.jsonl'))
    with FakeServer() as s:
        opened = ingest_counting_opens(tmp_path, s)
        calls = len(s.requests)
    logs = sorted((tmp_path / 'runs' / 'proj').glob('*.jsonl'))
    assert len(logs) == 4 and all(verify(log).ok for log in logs) and calls == 4 * 31
    assert opened == {f: 4 for f in files}          # was 2 + 4: sniff, a counting pass, then one read per query;
    # now sniff, the estimate's sample (at most 2 MB over a project: a small file is all sample), the read that finds
    # the values a secret once found spreads from (`Project.known_secrets`: a value found in a later session is
    # redacted in an earlier one too), and the one read
    with open(files[0], 'a') as f: f.write(open(files[0]).readline())   # a line appended: every log reads on
    with FakeServer() as s:
        opened = ingest_counting_opens(tmp_path, s, '--resume')
    assert opened == {f: 4 for f in files}          # was 2 + 4 + 4: and once more per query to find what was unread
    with FakeServer() as s:
        opened = ingest_counting_opens(tmp_path, s, '--resume')
        assert len(s.requests) == 0
    assert opened == {f: 1 for f in files}          # complete, and no file changed since: only sniffed, never read

_OPENED: list | None = None          # while a list: every file opened, in order

def _count_opens(event, args):
    if _OPENED is not None and event == 'open' and isinstance(args[0], str): _OPENED.append(args[0])

sys.addaudithook(_count_opens)

def opens_of(call, under: str) -> Counter:
    "How often `call()` opened each file under `under`."
    global _OPENED
    _OPENED = []
    try: call()
    finally: seen, _OPENED = _OPENED, None
    return Counter(f for f in seen if f.startswith(under))

def test_what_an_agent_asks_reads_each_log_once(tmp_path):
    from memgate import recall
    shutil.copytree(FIXTURES / 'runs' / 'scripted', tmp_path / 'runs')
    logs = sorted(str(p) for p in (tmp_path / 'runs').rglob('*.jsonl'))
    infra = str(tmp_path / 'runs' / 'transcripts' / 'infra-root-causes.jsonl')
    under = str(tmp_path / 'runs') + '/'
    assert opens_of(lambda: recall.memories(tmp_path / 'runs'), under) == Counter({p: 1 for p in logs})
    assert opens_of(lambda: recall.search(tmp_path / 'runs', 'port'), under) == Counter({p: 1 for p in logs})
    # finding the log reads each first line; the log found is then read whole, once
    assert opens_of(lambda: recall.memory(tmp_path / 'runs', 'infra-root-causes'), under) == Counter(
        {p: 1 + (p == infra) for p in logs})
