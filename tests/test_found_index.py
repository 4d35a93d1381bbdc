"""The index of found values (`memgate.found`): a second run reads only the lines that held values, finds
exactly what a first run finds, reads a grown file from where it ended, reads a changed file whole again, and
keeps no value on disk."""
import json, os, shutil
from pathlib import Path
import pytest
import memgate.projects as projects
from memgate.found import cache_folder
from memgate.projects import load_project

ROUND = Path(__file__).parent / 'data' / 'blind_round14'

@pytest.fixture
def corpus(tmp_path, monkeypatch):
    "A copy of a blind round's sessions, and a cache folder of its own."
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path / 'cache'))
    shutil.copytree(ROUND, tmp_path / 'corpus', ignore=shutil.ignore_patterns('manifest.json'))
    return tmp_path / 'corpus'

@pytest.fixture
def reads(monkeypatch):
    "Each call of `found_lines`: (file name, offsets asked for, offset read from)."
    calls, real = [], projects.found_lines
    def spy(s, path, cap, at=None, start=0, **kw):
        calls.append((path.name, at, start))
        return real(s, path, cap, at=at, start=start, **kw)
    monkeypatch.setattr(projects, 'found_lines', spy)
    return calls

def known(folder):
    "The values a fresh load of `folder` finds, and their digest."
    k = load_project(folder).known_secrets()
    return k.values, k.digest()

def cold(folder, tmp_path, monkeypatch):
    "What a run with an empty cache finds in `folder`."
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path / f'empty-{len(os.listdir(tmp_path))}'))
    try: return known(folder)
    finally: monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path / 'cache'))

def test_a_second_run_reads_only_the_lines_that_held_values(corpus, reads):
    first = known(corpus)
    assert len(first[0]) > 50
    assert all(at is None and start == 0 for _, at, start in reads)
    reads.clear()
    assert known(corpus) == first
    sizes = {p.name: p.stat().st_size for p in corpus.rglob('*.jsonl')}
    # nothing read from an offset but the files' ends: nothing to read
    assert all(start == sizes[name] for name, at, start in reads if at is None)
    assert len([r for r in reads if r[1] is None]) == len(sizes)
    asked = sum(len(at) for _, at, _ in reads if at is not None)
    lines = sum(p.read_bytes().count(b'\n') for p in corpus.rglob('*.jsonl'))
    assert 0 < asked < lines / 2

def test_the_index_holds_no_value(corpus):
    values, _ = known(corpus)
    written = b''.join(p.read_bytes() for p in (cache_folder() / 'found').glob('*.json'))
    assert written
    for v in values:
        w = min(8, len(v))
        assert not any(v[i:i + w].encode() in written for i in range(len(v) - w + 1)), v
    assert (cache_folder() / 'found').stat().st_mode & 0o777 == 0o700
    assert (cache_folder() / 'found' / 'key').stat().st_mode & 0o777 == 0o600

def say(text: str) -> str:
    return json.dumps(dict(type='user', uuid='appended-1', sessionId='x', timestamp='2025-06-01T10:00:00Z',
                           message=dict(role='user', content=text))) + '\n'

def test_a_grown_file_is_read_from_where_it_ended(corpus, reads, tmp_path, monkeypatch):
    known(corpus)
    f = sorted((corpus / 'claude').glob('*.jsonl'))[0]
    size = f.stat().st_size
    with open(f, 'a') as out: out.write(say('export PAYROLL_API_TOKEN=Qm7vR2xK9pL4wZ8nT3sB6yH1'))
    reads.clear()
    values, digest = known(corpus)
    assert values['Qm7vR2xK9pL4wZ8nT3sB6yH1']
    assert (f.name, None, size) in reads
    assert (values, digest) == cold(corpus, tmp_path, monkeypatch)

def test_a_changed_file_is_read_whole_again(corpus, reads, tmp_path, monkeypatch):
    values, _ = known(corpus)
    f = sorted((corpus / 'claude').glob('*.jsonl'))[0]
    text = f.read_text()
    old = next(v for v in values if v in text and len(v) >= 12 and v.isalnum())
    # the same size, a value of the same length in the same place: only the bytes tell
    shift = str.maketrans('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
                          'bcdefghijklmnopqrstuvwxyzaBCDEFGHIJKLMNOPQRSTUVWXYZA1234567890')
    new = old.translate(shift)
    st = f.stat()
    f.write_text(text.replace(old, new))
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    reads.clear()
    got, digest = known(corpus)
    assert new in got and old not in got
    assert (f.name, None, 0) in reads
    assert (got, digest) == cold(corpus, tmp_path, monkeypatch)

def test_a_value_planted_where_none_was_is_found(corpus, tmp_path, monkeypatch):
    "A file rewritten with a value on a line the index never named: a changed file, read whole."
    known(corpus)
    f = sorted((corpus / 'codex').glob('*.jsonl'))[0]
    lines = f.read_text().splitlines(keepends=True)
    lines.insert(1, json.dumps(dict(timestamp='2025-03-15T07:33:01Z', type='response_item', payload=dict(
        type='message', role='user', content=[dict(type='input_text', text='DB_PASSWORD=Vx8#kq2Lm9Wp')]))) + '\n')
    f.write_text(''.join(lines))
    values, digest = known(corpus)
    assert 'Vx8#kq2Lm9Wp' in values
    assert (values, digest) == cold(corpus, tmp_path, monkeypatch)

def test_a_cache_that_cannot_be_made_reads_everything(corpus, tmp_path, monkeypatch, reads):
    first = known(corpus)
    (tmp_path / 'not-a-folder').write_text('')
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path / 'not-a-folder'))
    reads.clear()
    assert known(corpus) == first
    assert all(at is None and start == 0 for _, at, start in reads)

def test_a_cache_folder_through_a_link_is_not_used(corpus, tmp_path, monkeypatch, reads):
    first = known(corpus)
    (tmp_path / 'theirs').mkdir()
    (tmp_path / 'linked').mkdir()
    (tmp_path / 'linked' / 'memgate').symlink_to(tmp_path / 'theirs')
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path / 'linked'))
    reads.clear()
    assert known(corpus) == first
    assert all(at is None for _, at, _ in reads)
    assert list((tmp_path / 'theirs').iterdir()) == []
