"Issue 51: `show`, `stats`, `eval` and `report` of a log with skipped turns count them apart, never as gates."
import json, re
from pathlib import Path
import pytest
from helpers import ROOT, memgate, pregated_logs
from memgate.analysis import load_runs
from memgate.labels import load_labels
from memgate.log import read_log, stats, verify
from memgate.loop import OUTCOMES

LABELS = ROOT / 'labels'
QUERY = 'infra-root-causes'

@pytest.fixture(scope='module')
def logs(tmp_path_factory):
    """(plain, pregated) logs of infra-root-causes: at recall 0.5 and δ 0.5 the 31 bundled chunks are enough to skip;
    the audit seed fixed, the same chunks every time."""
    plain, log = pregated_logs(tmp_path_factory.mktemp('runs'), QUERY, '--recall', '0.5', '--delta', '0.5',
                               '--audit-seed', '1')
    assert verify(log).ok
    return plain, log

def kinds(log) -> dict:
    "The t of each turn of `log`, by its kind; and the gates that said yes."
    events = read_log(log).events
    out = {k: [e['t'] for e in events if e['kind'] == k] for k in ('gate', 'parse_failed', 'skipped')}
    out['yes'] = [e['t'] for e in events if e['kind'] == 'gate' and e['update']]
    return out

def test_the_pregated_log_skips_a_relevant_chunk_and_has_parse_failures(logs):
    "What the other tests rest on: the run skipped chunks, one of them labelled relevant, and failed to parse some."
    k = kinds(logs[1])
    relevant = {i for i, lab in load_labels(LABELS / 'transcripts' / f'{QUERY}.toml').chunks.items() if lab.relevant}
    assert k['skipped'] and k['parse_failed'] and set(k['skipped']) & relevant and set(k['skipped']) - relevant
    assert sorted(k['gate'] + k['parse_failed'] + k['skipped']) == list(range(1, 32))

def test_stats_says_chunks_read_skipped_and_calls_saved_and_rates_over_the_chunks_read(logs):
    log, k = logs[1], kinds(logs[1])
    n, read, skipped, used = 31, 31 - len(k['skipped']), len(k['skipped']), stats(log).chunks_used
    r = memgate('stats', log)
    assert r.returncode == 0, r.stderr
    assert (f"{log}  chunks {n}  read {read}  skipped {skipped}  calls-saved {skipped}  used {used}  "
            f"update-rate {100 * used / read:.1f}%  said-yes {100 * len(k['yes']) / read:.1f}%  ") in r.stdout
    assert f"  parse-failures {len(k['parse_failed'])}  " in r.stdout
    (row,) = json.loads(memgate('stats', log, '--format', 'json').stdout)
    assert (row['chunks_seen'], row['chunks_read'], row['skipped'], row['parse_failures']) == (
        n, read, skipped, len(k['parse_failed']))
    assert row['pregate']['target'] == 0.5 and row['update_rate'] == used / read

def test_stats_of_a_log_without_a_pregate_says_nothing_of_skipping(logs):
    r = memgate('stats', logs[0])
    assert r.returncode == 0 and re.search(r'  chunks 31  used \d+  update-rate', r.stdout), r.stdout
    assert 'skipped' not in r.stdout and 'read' not in r.stdout
    (row,) = json.loads(memgate('stats', logs[0], '--format', 'json').stdout)
    assert (row['chunks_read'], row['skipped'], 'pregate' in row) == (31, 0, False)

def test_show_counts_skipped_turns_apart_and_lists_each_with_its_score_and_threshold(logs):
    log, k = logs[1], kinds(logs[1])
    skips = [e for e in read_log(log).events if e['kind'] == 'skipped']
    used, n = stats(log).chunks_used, len(skips)
    r = memgate('show', log)
    assert r.returncode == 0, r.stderr
    assert (f"\n31 chunks: {31 - n} read, {n} skipped by the pregate ({n} model calls saved); {used} used: "
            f"update-rate {100 * used / (31 - n):.1f}%, said-yes {100 * len(k['yes']) / (31 - n):.1f}%, ") in r.stdout
    block = r.stdout.split('\nskipped by the pregate (not sent to the model; memory kept):\n')[1]
    lines = block.rstrip('\n').splitlines()
    assert [line.split('  ')[1] for line in lines] == [f"t={e['t']}" for e in skips]
    for line, e in zip(lines, skips):
        assert f"  score {e['score']:g} < threshold {e['threshold']:g}  {Path(e['read'][0]['file']).name}" in line
    (row,) = json.loads(memgate('show', log, '--format', 'json').stdout)
    assert [(s['t'], s['chunk'], s['score'], s['threshold']) for s in row['skipped']] == [
        (e['t'], e['chunk'], e['score'], e['threshold']) for e in skips]
    assert (row['stats']['chunks_read'], row['stats']['skipped']) == (31 - n, n)
    md = memgate('show', log, '--format', 'md').stdout
    assert f"| {skips[0]['t']} | {skips[0]['score']:g} | {skips[0]['threshold']:g} | " in md

def test_show_of_a_log_without_a_pregate_is_as_before(logs):
    r = memgate('show', logs[0])
    assert '\n31 chunks read, ' in r.stdout and 'skipped' not in r.stdout
    (row,) = json.loads(memgate('show', logs[0], '--format', 'json').stdout)
    assert row['skipped'] == []

def test_report_draws_skipped_turns_as_skipped_and_counts_calls_and_rates_without_them(logs, tmp_path):
    log, k = logs[1], kinds(logs[1])
    r, s = load_runs(log), stats(log)
    outcomes = r.turns.set_index('t').outcome
    assert sorted(outcomes[outcomes == 'skipped'].index) == k['skipped']
    assert sorted(outcomes[outcomes == 'parse_failed'].index) == k['parse_failed']
    assert (outcomes == 'retained').sum() == len(k['gate']) - len(k['yes'])
    (run,) = r.runs.to_dict('records')
    assert (run['chunks_seen'], run['chunks_read'], run['skipped'], run['calls_saved'], run['calls']) == (
        31, s.chunks_read, len(k['skipped']), len(k['skipped']), s.calls)
    assert (run['update_rate'], run['said_yes_rate']) == (s.update_rate, s.said_yes_rate)
    (row,) = r.logs.to_dict('records')
    assert (row['chunks_read'], row['skipped'], row['calls'], row['update_rate']) == (
        s.chunks_read, s.skipped, s.calls, s.update_rate)
    out = memgate('report', log, '--out', tmp_path / 'report')
    assert out.returncode == 0, out.stderr
    page = (tmp_path / 'report' / 'index.html').read_text()
    n = len(k['skipped'])
    assert f", {31 - n} chunks read, {n} skipped by the pregate ({n} model calls saved) · " in page
    assert '<th>chunks_read</th>' in page and '<th>calls_saved</th>' in page

def test_the_gate_raster_marks_the_skipped_turns_as_skipped_not_as_no(logs):
    import matplotlib
    matplotlib.use('Agg')
    from memgate.analysis import plot_gate_raster
    k = kinds(logs[1])
    fig = plot_gate_raster(load_runs(logs[1]).turns)
    marks = {c.get_label(): sorted(c.get_offsets()[:, 0]) for c in fig.axes[0].collections}
    assert marks[OUTCOMES['skipped'].label] == k['skipped']
    assert marks[OUTCOMES['retained'].label] == sorted(set(k['gate']) - set(k['yes']))

def truths(log):
    "t -> relevant, for every turn of `log`, from the committed labels (unlisted chunks irrelevant)."
    labels = load_labels(LABELS / 'transcripts' / f'{QUERY}.toml')
    return {t: labels.chunks[t].relevant for t in range(1, 32)}

def test_eval_scores_only_the_gates_and_reports_calls_saved_and_the_relevant_chunks_skipped(logs):
    log, k = logs[1], kinds(logs[1])
    truth, said = truths(log), {t: t in k['yes'] for t in k['gate'] + k['parse_failed']}
    r = memgate('eval', log, '--labels', LABELS, '--format', 'json')
    assert r.returncode == 0, r.stderr
    (row,) = json.loads(r.stdout)
    # the gates scored are the turns the model read: a skipped chunk is no "no"
    assert row['chunks'] == sorted(said)
    tp, fn = sum(said[t] and truth[t] for t in said), sum(truth[t] and not said[t] for t in said)
    assert (row['said']['tp'], row['said']['fn'], row['said']['tn'] + row['said']['fp']) == (
        tp, fn, len(said) - tp - fn)
    assert (row['parse_failures'], row['unread']) == (len(k['parse_failed']), [])
    skipped_relevant = [t for t in k['skipped'] if truth[t]]
    relevant_read = [t for t in said if truth[t]]
    assert (row['calls_saved'], row['skipped']) == (len(k['skipped']), k['skipped'])
    assert row['relevant_read'] == relevant_read
    assert row['read_recall'] == len(relevant_read) / (len(relevant_read) + len(skipped_relevant))
    skips = {e['t']: e for e in read_log(log).events if e['kind'] == 'skipped'}
    assert [(s['t'], s['chunk'], s['read']) for s in row['relevant_skipped']] == [
        (t, skips[t]['chunk'][:12], skips[t]['read']) for t in skipped_relevant]
    text = memgate('eval', log, '--labels', LABELS).stdout.splitlines()
    n = len(k['skipped'])
    assert text[0] == (f"transcripts / {QUERY}: {len(said)} labelled chunks every run read, {tp + fn} relevant; "
                       f"chunks {', '.join(map(str, k['skipped']))} skipped by the pregate: not scored")
    assert text[1].endswith(f"  saved={n} read-recall={row['read_recall']:.2f} "
                            f"({len(relevant_read)}/{len(relevant_read) + len(skipped_relevant)})"), text[1]
    files = lambda t: '; '.join(f"{Path(f['file']).name} {f['refs'][0]} .. {f['refs'][-1]}" for f in skips[t]['read'])
    assert text[2:] == [f"    skipped relevant t={t} {skips[t]['chunk'][:12]}  {files(t)}" for t in skipped_relevant]

def test_eval_of_a_run_without_a_pregate_reports_nothing_saved_and_says_nothing_more(logs):
    plain = logs[0]
    (row,) = json.loads(memgate('eval', plain, '--labels', LABELS, '--format', 'json').stdout)
    assert (row['calls_saved'], row['skipped'], row['relevant_skipped'], row['read_recall']) == (0, [], [], 1.0)
    text = memgate('eval', plain, '--labels', LABELS).stdout
    assert len(text.splitlines()) == 2 and 'saved' not in text and 'skipped' not in text and 'read-recall' not in text
    assert text.startswith(f"transcripts / {QUERY}: 31 labelled chunks every run read, 6 relevant\n")

def test_eval_of_both_runs_scores_each_on_the_chunks_both_read(logs):
    r = memgate('eval', *logs, '--labels', LABELS, '--format', 'json')
    plain, pregated = json.loads(r.stdout)
    assert plain['chunks'] == pregated['chunks'] == [t for t in range(1, 32) if t not in pregated['skipped']]
    assert (plain['calls_saved'], pregated['calls_saved']) == (0, len(pregated['skipped']))
