"""Chunking made faster makes the same chunks: every sha and token count equals the recorded ones (issue 13).

The table in fixtures/expected/chunk_shas.json was written by `tests/chunk_cases.py` with the chunker as it stood
before the speed work; a change to chunk output must be deliberate: rerun that script and say why in the commit.
"""
import json
import pytest
from hypothesis import example, given, settings, strategies as st
from chunk_cases import EXPECTED, cases, chunk_table
from memgate.chunking import chunk_project, chunk_records
from memgate.projects import load_project
from memgate.domain import Record, Role, count_joined, count_tokens

RECORDED = json.loads(EXPECTED.read_text())

@pytest.fixture(scope='module')
def specs(tmp_path_factory): return cases(tmp_path_factory.mktemp('cases'))

@pytest.mark.parametrize('name', sorted(RECORDED))
def test_every_case_chunks_to_the_recorded_shas_and_token_counts(specs, name):
    got, want = chunk_table(specs[name]), RECORDED[name]
    first = next((i for i, (g, w) in enumerate(zip(got, want)) if g != w), None)
    assert first is None, f"{name}: chunk {want[first][0]} differs: {got[first]} != {want[first]}"
    assert len(got) == len(want), f"{name}: {len(got)} chunks, recorded {len(want)}"

def test_the_recorded_table_covers_every_kind_of_case():
    assert len(RECORDED) == 16 and sum(map(len, RECORDED.values())) == 3081

text = st.text(st.sampled_from(['a', 'Z', ' ', '\n', '\t', '1', '.', "'", '🙂', '漢', '\r', '[', 'é']), max_size=300)

@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(list(Role)), text), min_size=1, max_size=12),
       st.sampled_from([40, 120, 5000]))
def test_a_chunks_token_count_is_the_count_of_its_text(recs, size):
    "The chunker derives a chunk's count from its records' counts; it must equal counting the chunk's text."
    for c in chunk_records([Record(role, t, 'f', f'r{i}') for i, (role, t) in enumerate(recs)], size):
        assert c.tokens == count_tokens(c.text), repr(c.text)

@settings(max_examples=1000, deadline=None)
@given(st.lists(st.tuples(text, st.booleans()), min_size=1, max_size=7))
@example([(' ', False), (' 1', True)])      # found by hypothesis: blanks before a digit count differently alone
def test_joined_text_counts_from_its_parts_counts(parts):
    "count_joined, given some parts' own counts, equals counting the joined text: what a prompt's count relies on."
    given_counts = [(t, count_tokens(t) if known else None) for t, known in parts]
    assert count_joined(given_counts) == count_tokens(''.join(t for t, _ in parts)), parts

def test_worker_processes_make_the_same_chunks_and_reports(specs):
    "A large project is read by worker processes, a session each: the same chunks, warnings and skips come back."
    path, size, cap, redact = specs['generated-4mb@5000']
    here, there = load_project(path, cap, redact), load_project(path, cap, redact)
    alone = [[c.index, c.sha, c.tokens] for c in chunk_project(here, size, workers=1)]
    pooled = [[c.index, c.sha, c.tokens] for c in chunk_project(there, size, workers=2)]
    assert alone == pooled == RECORDED['generated-4mb@5000']
    assert here.warnings.summary() == there.warnings.summary() and 'skipped' in there.warnings.summary()
