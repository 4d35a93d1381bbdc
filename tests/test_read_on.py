"""A grown session read on from where its last read stopped (issue 53): at every line boundary of the bundled
sessions, the window a watch reads from gives the records a whole read gives from it on, or it is refused and
the file is read whole; and a watch's pass after a big session grew reads about what was appended."""
import json, shutil
from pathlib import Path
import pytest
from memgate.chunking import CHUNK_TOKENS, count_records, pack
from memgate.reading import Warnings
from memgate.sessions import NotLocal, group_sessions, session_records, window_records
from memgate.tails import mark_of, window_for, windows_for

FIX = Path(__file__).parent.parent / 'fixtures' / 'transcripts'
FILES = sorted(FIX.rglob('*.jsonl'))

def read(path: Path):
    "(session, records, report) of the one-file session at `path`, read whole."
    w = Warnings()
    s = group_sessions([path], Warnings())[0]
    return s, session_records(s, w, secrets=False), w.files[path]

def last_turn(recs) -> set[str]:
    "The refs of the records of the last chunk a run packs of `recs`."
    chunks = list(pack(count_records(recs, CHUNK_TOKENS), CHUNK_TOKENS, 1))
    return {r.ref for r in chunks[-1].records} if chunks else set()

TALLY: dict[str, dict] = {}

@pytest.mark.parametrize('path', FILES, ids=lambda p: p.name[:24])
def test_a_window_reads_what_a_whole_read_reads_from_it_on(path, tmp_path):
    lines = path.read_bytes().splitlines(True)
    grown = tmp_path / path.name
    grown.write_bytes(b''.join(lines))
    _, whole, _ = read(grown)
    tally = TALLY.setdefault(path.name, dict(same=0, whole=0))
    for k in range(1, len(lines)):
        grown.write_bytes(b''.join(lines[:k]))
        s, before, rep = read(grown)
        mark = mark_of(grown, rep)
        grown.write_bytes(b''.join(lines))
        w = window_for(s, grown, mark, last_turn(before))
        try: got = window_records(s, w, Warnings(), secrets=False) if w else None
        except NotLocal: got = None
        if got is None:
            tally['whole'] += 1
            continue
        # the records from the window on, as a whole read gives them, the last turn's among them (those a whole
        # read still gives: a copy whose message came later is dropped, and the log's check says so)
        assert got == whole[len(whole) - len(got):], (path.name, k)
        assert last_turn(before) & {r.ref for r in whole} <= {r.ref for r in got}, (path.name, k)
        tally['same'] += 1
    # a file without sub-agents' lines in it reads on at nearly every boundary (the rest: the first line, a
    # copy the window cannot match); one with them (Claude Code 1.x) reads whole where a window holds one
    inline = b'"isSidechain":true' in path.read_bytes()
    assert tally['same'] >= (0 if inline else 0.9) * (len(lines) - 1), tally

def test_a_file_of_two_sessions_or_edited_is_read_whole(tmp_path):
    src = next(p for p in FILES if 'full-session-four' in p.name)
    f = tmp_path / 's.jsonl'
    shutil.copy(src, f)
    s, recs, rep = read(f)
    mark = mark_of(f, rep)
    with open(f, 'a') as out: out.write(json.dumps(dict(type='user', sessionId='another', uuid='z1',
                                                        message=dict(role='user', content='hi'))) + '\n')
    w = window_for(s, f, mark, last_turn(recs))
    with pytest.raises(NotLocal): window_records(s, w, Warnings(), secrets=False)
    # an edit before the mark: no window, the file is read whole
    f.write_bytes(f.read_bytes().replace(b'"type":"user"', b'"type": "user"', 1))
    assert windows_for([s], {str(f): mark}, {}) == {}

class Counted:
    "A file open for reading that counts the bytes read from it."
    def __init__(self, f, tally: list): self.f, self.tally = f, tally
    def __enter__(self): return self
    def __exit__(self, *exc): self.f.close()
    def __getattr__(self, name): return getattr(self.f, name)
    def readline(self, *a):
        got = self.f.readline(*a)
        self.tally.append(len(got))
        return got

def test_a_file_with_no_conversation_is_looked_at_boundedly_and_once(tmp_path, monkeypatch):
    "ccusage#873: a 734 MB snapshot JSONL with no conversation in it, read whole to tell what it was."
    import builtins, memgate.reading
    from memgate.sessions import SNIFF_BYTES, sniffed
    snap = tmp_path / 'snapshots.jsonl'
    line = json.dumps(dict(type='file-history-snapshot', messageId='m', snapshot=dict(files='x' * 2000))) + '\n'
    snap.write_text(line * (8 * SNIFF_BYTES // len(line)))
    tally = []
    monkeypatch.setattr(memgate.reading, 'open', lambda *a, **k: Counted(builtins.open(*a, **k), tally),
                        raising=False)
    assert sniffed(snap).format == 'claude'
    assert SNIFF_BYTES <= sum(tally) <= SNIFF_BYTES + 2 * len(line), sum(tally)
    tally.clear()
    sniffed(snap)
    assert tally == []                                   # unchanged: not looked at again
    with open(snap, 'a') as f: f.write(line)
    sniffed(snap)
    assert sum(tally) > 0                                # grown: looked at again
