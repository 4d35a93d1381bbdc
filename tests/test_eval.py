"`memgate eval`: gate scores against labels, recomputed here from the log's gate events and the labels file."
import json
from pathlib import Path
from memgate.testing import FakeServer
from helpers import docs_text, memgate
from memgate.chunking import chunk_project
from memgate.labels import LabelError, check_labels, load_labels
from memgate.projects import load_project
import pytest

PROJECT = Path(__file__).parent.parent / 'fixtures' / 'transcripts'
QUERY = 'infra-root-causes'

def chunks_json():
    r = memgate('chunks', '--project', PROJECT, '--format', 'json')
    return json.loads(r.stdout)

def write_labels(folder: Path, chunks, relevant, sha_of=lambda c: c['sha']) -> Path:
    "A labels file written by hand: `relevant` decides each chunk; unlisted chunks are irrelevant."
    lines = ['project = "transcripts"', f'query = "{QUERY}"', 'unlisted = "irrelevant"']
    for c in chunks:
        lines += ['[[chunk]]', f"index = {c['index']}", f'sha = "{sha_of(c)}"',
                  f"relevant = {str(relevant(c)).lower()}"]
    path = folder / 'transcripts' / f'{QUERY}.toml'
    path.parent.mkdir(parents=True)
    path.write_text('\n'.join(lines) + '\n')
    return path

def scripted_run(tmp_path) -> Path:
    "A run of the scripted server's keyword gate (yes when a chunk says 'error') over every bundled chunk."
    with FakeServer() as s:
        r = memgate('ingest', '--project', PROJECT, '--base-url', s.url, '--model', 'test-model', '--query', QUERY,
                    '--log-dir', tmp_path / 'logs')
    assert r.returncode == 0, r.stderr
    return tmp_path / 'logs' / 'transcripts' / f'{QUERY}.jsonl'

def test_eval_reproduces_precision_and_recall_computed_from_the_gate_events_and_the_labels(tmp_path):
    chunks = chunks_json()
    picked = lambda c: c['index'] in {2, 8, 17, 20, 23, 29}      # 29 has no 'error': the keyword gate misses it
    write_labels(tmp_path / 'labels', chunks, picked)
    log = scripted_run(tmp_path)
    truth = {c['index']: picked(c) for c in chunks}
    said = {e['t']: e['update'] for e in map(json.loads, log.read_text().splitlines()) if e['kind'] == 'gate'}
    assert len(said) == len(chunks) == 31
    tp = sum(said[t] and truth[t] for t in said)
    fp, fn = [t for t in said if said[t] and not truth[t]], [t for t in said if truth[t] and not said[t]]
    assert tp and fp and fn, 'the labels must disagree with the gate both ways for this test to mean anything'
    r = memgate('eval', log, '--labels', tmp_path / 'labels', '--format', 'json')
    assert r.returncode == 0, r.stderr
    (row,) = json.loads(r.stdout)
    assert row['said']['precision'] == tp / (tp + len(fp))
    assert row['said']['recall'] == tp / (tp + len(fn))
    assert (row['false_pos'], row['false_neg'], row['chunks']) == (fp, fn, sorted(said))
    assert (row['model'], row['gate'], row['parse_failures'], row['first_attempt']) == ('test-model', 'on', 0, 1.0)
    text = memgate('eval', log, '--labels', tmp_path / 'labels').stdout
    assert f"said P={tp / (tp + len(fp)):.2f} R={tp / (tp + len(fn)):.2f}" in text
    assert text.startswith(f"transcripts / {QUERY}: 31 labelled chunks every run read, {tp + len(fn)} relevant\n")

def test_a_log_over_other_chunks_than_the_labels_is_refused_naming_the_chunk(tmp_path):
    chunks = chunks_json()
    labels = write_labels(tmp_path / 'labels', chunks, lambda c: True,
                          sha_of=lambda c: '0' * 64 if c['index'] == 5 else c['sha'])
    r = memgate('eval', scripted_run(tmp_path), '--labels', tmp_path / 'labels')
    assert (r.returncode, r.stdout) == (2, '')
    assert f"turn 5 read chunk {chunks[4]['sha'][:12]} but {labels} labels chunk 5 as 000000000000" in r.stderr
    assert 'Traceback' not in r.stderr

def test_a_label_whose_chunk_changed_is_named_when_checked_against_the_project(tmp_path):
    chunks = chunks_json()
    path = write_labels(tmp_path, chunks, lambda c: c['index'] == 7,
                        sha_of=lambda c: c['sha'][::-1] if c['index'] == 12 else c['sha'])
    project_chunks = list(chunk_project(load_project(PROJECT), 5000))
    with pytest.raises(LabelError, match=f"{path}: chunk 12 changed since it was labelled"):
        check_labels(load_labels(path), project_chunks)
    path.write_text(path.read_text().replace(chunks[11]['sha'][::-1], chunks[11]['sha']))
    assert [i for i, lab in check_labels(load_labels(path), project_chunks).chunks.items() if lab.relevant] == [7]

def test_export_lines_recreate_the_recorded_requests_byte_for_byte(tmp_path):
    rec = tmp_path / 'recording.jsonl'
    with FakeServer() as s:
        r = memgate('ingest', '--project', PROJECT, '--base-url', s.url, '--model', 'test-model', '--query', QUERY,
                    '--log-dir', tmp_path / 'logs', '--concurrency', '1', MEMGATE_RECORD=str(rec))
    assert r.returncode == 0, r.stderr
    sent = [json.loads(line) for line in rec.read_text().splitlines()]
    log = tmp_path / 'logs' / 'transcripts' / f'{QUERY}.jsonl'
    chunks = chunks_json()
    write_labels(tmp_path / 'labels', chunks, lambda c: c['index'] in {3, 9})
    r = memgate('export', log, '--project', PROJECT, '--labels', tmp_path / 'labels', '--out', tmp_path / 'x.jsonl')
    assert (r.returncode, r.stderr) == (0, f"wrote 31 turns of 1 log to {tmp_path / 'x.jsonl'}\n")
    rows = [json.loads(line) for line in (tmp_path / 'x.jsonl').read_text().splitlines()]
    assert [json.dumps(x['messages']) for x in rows] == [json.dumps(x['request']['messages']) for x in sent]
    assert [x['response'] for x in rows] == [x['response']['text'] for x in sent]
    yes = {c['index'] for c in chunks if 'error' in c['text'].lower()}   # the scripted gate: yes where an error is
    wrong = [t for t in range(1, 32) if (t in yes) != (t in {3, 9})]
    assert 9 in yes and 20 < len(wrong) < 31
    assert [x['t'] for x in rows if x['rewards']['update'] is False] == wrong
    assert {x['rewards']['exit'] for x in rows if x['t'] < 9} == {True} and rows[9]['rewards']['exit'] is False

def test_export_chat_lines_are_chat_fine_tuning_records(tmp_path):
    with FakeServer() as s:
        memgate('ingest', '--project', PROJECT, '--base-url', s.url, '--model', 'test-model', '--query', QUERY,
                '--log-dir', tmp_path / 'logs', '--limit', '4')
    log = tmp_path / 'logs' / 'transcripts' / f'{QUERY}.jsonl'
    r = memgate('export', log, '--project', PROJECT, '--format', 'chat', '--out', tmp_path / 'chat.jsonl')
    assert r.returncode == 0, r.stderr
    rows = [json.loads(line) for line in (tmp_path / 'chat.jsonl').read_text().splitlines()]
    assert len(rows) == 4 and all(list(x) == ['messages'] for x in rows)
    assert all([m['role'] for m in x['messages']] == ['user', 'assistant'] for x in rows)
    assert all(x['messages'][-1]['content'].startswith('<think>') for x in rows)

LABELS = Path(__file__).parent.parent / 'labels'
README = Path(__file__).parent.parent / 'README.md'

def test_the_committed_labels_cover_every_bundled_chunk_for_both_queries_and_match_its_shas():
    project_chunks = list(chunk_project(load_project(PROJECT), 5000))
    for query in ('infra-root-causes', 'build-and-test-failures'):
        labels = check_labels(load_labels(LABELS / 'transcripts' / f'{query}.toml'), project_chunks)
        assert sorted(labels.chunks) == [c.index for c in project_chunks]
        assert all(lab.note for lab in labels.chunks.values() if lab.relevant)

def test_the_readme_quotes_the_keyword_baselines_scores_as_memgate_eval_prints_them():
    r = memgate('eval', PROJECT.parent / 'runs' / 'baseline', '--labels', LABELS, '--format', 'json')
    assert r.returncode == 0, r.stderr
    rows = {Path(x['log']).stem: x['said'] for x in json.loads(r.stdout)}
    text = ' '.join(docs_text().split())
    for query in ('infra-root-causes', 'build-and-test-failures'):
        said = rows[query]
        assert f"precision {said['precision']:.2f}, recall {said['recall']:.2f}** on `{query}`" in text

def test_a_querys_period_logs_are_scored_together_as_the_whole_run_is(tmp_path):
    chunks = chunks_json()
    picked = lambda c: c['index'] in {2, 8, 17, 20, 23, 29}
    write_labels(tmp_path / 'labels', chunks, picked)
    whole = scripted_run(tmp_path)
    with FakeServer() as s:
        r = memgate('ingest', '--project', PROJECT, '--base-url', s.url, '--model', 'test-model', '--query', QUERY,
                    '--log-dir', tmp_path / 'monthly', '--period', 'month', '--consolidate')
    assert r.returncode == 0, r.stderr
    got = memgate('eval', tmp_path / 'monthly', '--labels', tmp_path / 'labels', '--format', 'json')
    assert got.returncode == 0, got.stderr
    (row,) = json.loads(got.stdout)               # two month logs, one run; level 2 is not scored
    (one,) = json.loads(memgate('eval', whole, '--labels', tmp_path / 'labels', '--format', 'json').stdout)
    assert row['log'].endswith(f'monthly/transcripts/{QUERY}')
    assert (row['chunks'], row['said'], row['false_pos'], row['false_neg']) == \
           (one['chunks'], one['said'], one['false_pos'], one['false_neg'])
