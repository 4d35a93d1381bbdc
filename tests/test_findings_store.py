"""The store of what texts held (`memgate.found.FindingsStore`): a warm run looks each text up instead of running
the finders again, makes exactly the chunks a cold run makes (in one process or several), keeps no value on
disk, and believes no file it did not write."""
import shutil
from pathlib import Path
import pytest
import memgate.redact as redact
from memgate.chunking import chunk_project
from memgate.found import cache_folder
from memgate.projects import load_project
from memgate.reading import Warnings
from memgate.sessions import session_records

DATA = Path(__file__).parent / 'data'
ROUNDS = [DATA / 'blind_round14', DATA / 'blind_round20']

@pytest.fixture
def corpus(tmp_path, monkeypatch):
    "A copy of a blind round's sessions, a cache folder of its own, and no store in use yet."
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path / 'cache'))
    shutil.copytree(ROUNDS[1], tmp_path / 'corpus', ignore=shutil.ignore_patterns('manifest.json'))
    yield tmp_path / 'corpus'
    redact.use_store(None)
    redact._TEXT_FINDINGS.clear()

@pytest.fixture
def finders(monkeypatch):
    "The texts the finders were asked about in this process."
    asked, real = [], redact._found_alone
    def spy(text):
        asked.append(text)
        return real(text)
    monkeypatch.setattr(redact, '_found_alone', spy)
    return asked

def chunks(folder, workers=1) -> list[str]:
    "The chunks' texts of a fresh load of `folder`, nothing kept in memory from before."
    redact._TEXT_FINDINGS.clear()
    return [c.text for c in chunk_project(load_project(folder), workers=workers)]

def test_what_the_store_keeps_reads_back_as_the_finders_found_it():
    texts = {r.text for folder in ROUNDS for s in load_project(folder).sessions
             for r in session_records(s, Warnings(), secrets=False)}
    assert len(texts) > 300
    for t in texts:
        found = redact._found_alone(t)
        assert redact.restored(redact.as_stored(found), t) == found, t[:200]

def test_a_warm_run_asks_no_finder_and_makes_the_same_chunks(corpus, finders):
    first = chunks(corpus)
    assert len(finders) > 300
    finders.clear()
    assert chunks(corpus) == first
    assert finders == []

def test_worker_processes_use_the_store_and_make_the_same_chunks(corpus, finders, monkeypatch):
    alone = chunks(corpus)
    monkeypatch.setenv('XDG_CACHE_HOME', str(corpus.parent / 'cache-workers'))
    redact.use_store(None)
    assert chunks(corpus, workers=2) == alone            # cold: the workers find, and hand it back
    store = redact.store_in_use()
    assert len(store.clean) + len(store.found) > 300
    [path] = (corpus.parent / 'cache-workers' / 'memgate' / 'found').glob('*.findings')
    written = path.stat().st_mtime_ns
    finders.clear()
    assert chunks(corpus, workers=2) == alone            # warm
    assert finders == []                                 # (this process's first session: looked up)
    # nothing found anew in the workers either: nothing to write
    assert path.stat().st_mtime_ns == written

def test_the_store_holds_no_value(corpus):
    chunks(corpus)
    values = load_project(corpus).known_secrets().values
    written = b''.join(p.read_bytes() for p in (cache_folder() / 'found').glob('*.findings'))
    assert len(values) > 50 and written
    for v in values:
        w = v.encode()[:8]
        assert w not in written, v

def test_a_store_file_changed_by_another_hand_is_not_believed(corpus, finders):
    first = chunks(corpus)
    [path] = (cache_folder() / 'found').glob('*.findings')
    data = bytearray(path.read_bytes())
    # every text said to hold nothing: the findings part emptied, the count kept
    n = int.from_bytes(data[4:8], 'big')
    forged = bytes(data[:8 + 16 * n]) + b'{}' + bytes(data[-32:])
    path.write_bytes(forged)
    redact.use_store(None)
    finders.clear()
    assert chunks(corpus) == first
    assert len(finders) > 300                            # read again, as a first run
