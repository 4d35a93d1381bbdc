"""`memgate pregate`: a scorer fitted on the bundled runs' gate decisions holds no session word, says what it
learned from (heads as `memgate verify` checks them), ranks yes above no, and refuses, in one line, what it was not
fitted for."""
import json, re
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.metrics import roc_auc_score
from conftest import FIXTURES
from helpers import memgate
from memgate.chunking import chunk_project
from memgate.domain import Chunk, Record, Role
from memgate.log import read_log, verify
from memgate.projects import load_project
from memgate.pregate import fit, load_scorer, run_chunks, decided

SESSIONS = FIXTURES / 'transcripts'
SCRIPTED = FIXTURES / 'runs' / 'scripted' / 'transcripts'
BASELINE = FIXTURES / 'runs' / 'baseline' / 'transcripts'
FITTED = ('conventions', 'infra-root-causes', 'build-and-test-failures')   # design-decisions has 4 yes: too few

def fit_cli(tmp_path, *logs, out='scorer.json', extra=()):
    "`memgate pregate fit LOGS --project <the bundled sessions> --out OUT`, and the file written."
    r = memgate('pregate', 'fit', *logs, '--project', SESSIONS, '--out', tmp_path / out, *extra)
    return r, tmp_path / out

def refused(r) -> str:
    "The one line a refusal prints, after checking it is one line, exit 2, no traceback, nothing on stdout."
    assert (r.returncode, r.stdout, 'Traceback' in r.stderr) == (2, '', False), r.stderr
    assert len(r.stderr.splitlines()) == 1, r.stderr
    return r.stderr

@pytest.fixture(scope='module')
def fitted(tmp_path_factory):
    "The conventions scorer as `memgate pregate fit` writes it: (its path, the command's result)."
    r, out = fit_cli(tmp_path_factory.mktemp('pregate'), SCRIPTED / 'conventions.jsonl')
    assert r.returncode == 0, r.stderr
    return out, r

def test_fit_writes_json_with_the_provenance_of_the_logs_it_learned(fitted):
    out, r = fitted
    body = json.loads(out.read_text(encoding='utf-8'))        # JSON, not a pickle: reading it runs no code
    p = body['provenance']
    log = SCRIPTED / 'conventions.jsonl'
    start = read_log(log).events[0]
    assert (body['kind'], body['features']['version']) == ('memgate pregate scorer', 1)
    assert (p['query'], p['question'], p['model'], p['baseline']) == ('conventions', start['question'],
                                                                     'scripted-gate', False)
    assert p['settings'] == dict(chunk_tokens=5000, tool_result_chars=16000, renderer=8, redactor=5,
                                 default_rules=None, secret_rules=None)
    assert p['counts'] == dict(yes=19, no=11, undecided=1)       # 31 turns, one answer that never parsed
    assert p['logs'] == [dict(path=str(log.resolve()), lines=65, head=verify(log).head)]
    assert r.stdout.startswith(f"{out}: a scorer of query conventions for model scripted-gate (chunk size 5000), "
                               "fitted on 19 yes and 11 no from 1 log")

def test_the_head_it_records_is_the_one_memgate_verify_checks(fitted):
    out, _ = fitted
    (kept,) = json.loads(out.read_text())['provenance']['logs']
    r = memgate('verify', kept['path'], '--head', kept['head'])
    assert r.returncode == 0 and f"ends at the head kept (line {kept['lines']})" in r.stdout, r.stdout + r.stderr

# the words a scorer file holds of its own: its keys, and the values of its provenance that are not the user's
OWN = set("""kind memgate pregate scorer features words chars bits version provenance query question model baseline
settings chunk tokens tool result renderer redactor default rules secret logs path lines head labels counts
undecided unmade labelled auc fitted held out folds learner LogisticRegression class weight balanced sklearn
intercept weights columns values null true false""".split())

def test_the_scorer_file_holds_no_word_of_the_sessions(fitted):
    "Features are hashed: besides its own words, the file holds the query's id and question and the logs' paths."
    out, _ = fitted
    text = out.read_text(encoding='utf-8')
    words = lambda s: set(re.findall(r'[A-Za-z]{4,}', re.sub(r'[0-9a-f]{12,}', ' ', s)))
    p = json.loads(text)['provenance']
    given = words(' '.join([p['query'], p['question'], p['model']] + [log['path'] for log in p['logs']]))
    session = words(' '.join(c.text for c in chunk_project(load_project(SESSIONS), 5000)))
    assert words(text) - given - OWN == set() and len(text) > 50_000 and len(session) > 1000

@pytest.mark.parametrize('query', FITTED)
def test_the_scorer_ranks_the_models_yes_above_its_no_better_than_chance(query):
    log = SCRIPTED / f'{query}.jsonl'
    scorer = fit(log, SESSIONS)
    d = decided(log)
    chunks = run_chunks(d, SESSIONS)
    said = [(chunks[sha], yes) for sha, yes in d.said.values() if yes is not None]
    auc = roc_auc_score([y for _, y in said], scorer.scores([c for c, _ in said]))
    assert auc > 0.9 and auc == pytest.approx(scorer.provenance['auc']['fitted'])
    assert scorer.provenance['auc']['held_out'] > 0.6          # each chunk scored by a scorer not fitted on it

def test_the_keyword_baselines_decisions_are_learned_only_when_asked(tmp_path):
    r, out = fit_cli(tmp_path, BASELINE / 'conventions.jsonl')
    assert "its decisions are the keyword baseline's, not a model's (--baseline-ok learns them)" in refused(r)
    assert not out.exists()
    r, out = fit_cli(tmp_path, BASELINE / 'conventions.jsonl', extra=['--baseline-ok'])
    assert r.returncode == 0 and json.loads(out.read_text())['provenance']['baseline'] is True

def test_a_log_of_another_query_is_refused_in_one_line(fitted, tmp_path):
    out, _ = fitted
    r = memgate('pregate', 'score', out, SCRIPTED / 'infra-root-causes.jsonl', '--project', SESSIONS)
    assert refused(r) == (f"memgate pregate: error: {out} was fitted for query conventions; this run has query "
                          "infra-root-causes: fit one on logs of runs like this one (memgate pregate fit)\n")
    r, _ = fit_cli(tmp_path, SCRIPTED / 'conventions.jsonl', SCRIPTED / 'infra-root-causes.jsonl')
    assert 'its run has query infra-root-causes' in refused(r)

def baseline_log(folder, *extra):
    "The keyword baseline's log of query conventions over the bundled sessions, written now (today's redactor)."
    r = memgate('ingest', '--project', SESSIONS, '--model', 'keyword-baseline', '--query', 'conventions', '--quiet',
                '--log-dir', folder, *extra)
    assert r.returncode == 0, r.stderr
    return folder / 'transcripts' / 'conventions.jsonl'

def test_a_log_of_another_chunk_size_is_refused_in_one_line(tmp_path):
    "A scorer of the baseline's 5000-token chunks, asked about its run over 1200-token chunks: only the size differs."
    big, small = baseline_log(tmp_path / 'big'), baseline_log(tmp_path / 'small', '--chunk-tokens', 1200, '--limit', 4)
    r, out = fit_cli(tmp_path, big, extra=['--baseline-ok'])
    assert r.returncode == 0, r.stderr
    r = memgate('pregate', 'score', out, small, '--project', SESSIONS)
    assert refused(r) == (f"memgate pregate: error: {out} was fitted for chunk size 5000; this run has chunk size "
                          "1200: fit one on logs of runs like this one (memgate pregate fit)\n")
    r, _ = fit_cli(tmp_path, big, small, out='both.json', extra=['--baseline-ok'])
    assert refused(r) == (f"memgate pregate: error: {small}: its run has chunk size 1200, {big}'s chunk size 5000: a "
                          "scorer learns from logs of one query, model and chunk settings\n")
    assert memgate('pregate', 'score', out, big, '--project', SESSIONS).returncode == 0

def test_too_few_yes_to_fit_on_is_refused_in_one_line(tmp_path):
    r, out = fit_cli(tmp_path, SCRIPTED / 'design-decisions.jsonl')
    assert refused(r) == ("memgate pregate: error: 1 log of query design-decisions hold 4 yes and 26 no, too few "
                          "to fit on: at least 5 of each (give more logs, or --labels)\n")
    assert not out.exists()

@pytest.fixture(scope='module')
def scorer(fitted): return load_scorer(fitted[0])

texts = st.text(st.characters(blacklist_categories=('Cs',)), max_size=400)
records = st.lists(st.tuples(st.sampled_from(list(Role)), texts), min_size=1, max_size=6)

@settings(max_examples=60, deadline=None)
@given(records)
def test_scoring_is_deterministic_and_a_probability(scorer, recs):
    chunk = Chunk.from_records(1, [Record(role, text) for role, text in recs], tokens=0)
    s = scorer.score(chunk)
    assert 0.0 <= s <= 1.0 and s == scorer.score(chunk) == scorer.scores([chunk, chunk])[1]
