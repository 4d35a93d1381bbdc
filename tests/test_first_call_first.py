"""The first model call waits for nothing it does not need (issue 48's cost line): the run's estimate of its size
samples the project's files only once the first chunk went out. Started at once, the sampling threads held the
interpreter while the first session was read and counted: on the 100 MB bench, 1.1 to 1.5 s to the first request,
against 0.8 to 1.0 s since."""
import shutil
from conftest import FIXTURES
from memgate.testing import FakeServer
import memgate.feed as feed
from memgate.cli import main

def test_the_estimate_waits_for_the_first_chunk(tmp_path, monkeypatch):
    shutil.copytree(FIXTURES / 'transcripts', tmp_path / 'proj')
    events, estimate, give = [], feed.estimate_chunks, feed.ChunkFeed._give
    def estimating(*a, **k):
        events.append('estimate')
        return estimate(*a, **k)
    def giving(self, readers, item):
        events.append(type(item).__name__)
        return give(self, readers, item)
    monkeypatch.setattr(feed, 'estimate_chunks', estimating)
    monkeypatch.setattr(feed.ChunkFeed, '_give', giving)
    with FakeServer() as s:
        code = main(['ingest', '--project', str(tmp_path / 'proj'), '--base-url', s.url, '--model', 'test-model',
                     '--log-dir', str(tmp_path / 'runs'), '--limit', '3'])
    assert code == 0 and events.count('estimate') == 1
    assert events.index('estimate') > events.index('Chunk') == 0
