"memgate.analysis on the committed fixture runs: frames agree with stats, plots are labelled, report links its files."
import json, re, subprocess, sys
from pathlib import Path
from conftest import FIXTURES
from memgate.analysis import (load_runs, memory_lineage, plot_gate_raster, plot_memory, plot_update_rates, plot_events,
                              plot_latency)
from memgate.log import stats

RUNS = FIXTURES / 'runs'

def test_frames_agree_with_stats_of_every_log():
    r = load_runs(RUNS)
    assert len(r.logs) == 8 and len(r.runs) == 8 and len(r.turns) == 8 * 31
    for row in r.logs.itertuples():
        s = stats(row.log)
        assert (row.chunks_seen, row.chunks_used, row.parse_failures, row.budget_exceeded, row.calls,
                row.memory_tokens) == \
               (s.chunks_seen, s.chunks_used, s.parse_failures, s.budget_exceeded, s.calls, s.memory_tokens)
        assert abs(row.update_rate - s.update_rate) < 1e-12
    assert set(r.turns.columns) >= {'run', 'project', 'query', 'level', 't', 'update', 'exit', 'applied',
                                    'parse_failed', 'budget_exceeded', 'memory_tokens', 'latency_s'}
    assert r.runs.baseline.sum() == 4 and set(r.runs.status) == {'complete'}

def test_turns_frame_matches_events_line_by_line():
    r = load_runs(RUNS)
    log = str(RUNS / 'scripted' / 'transcripts' / 'infra-root-causes.jsonl')
    ev = [json.loads(l) for l in Path(log).read_text().splitlines()]
    tn = r.turns[r.turns.log == log]
    assert list(tn.t) == list(range(1, 32))
    assert list(tn.parse_failed) == [any(e['kind'] == 'parse_failed' and e['t'] == t for e in ev) for t in range(1, 32)]
    mem, tokens = 0, []
    for t in range(1, 32):
        mem = next((e['tokens'] for e in ev if e['kind'] == 'memory' and e['t'] == t), mem)
        tokens.append(mem)
    assert list(tn.memory_tokens) == tokens

def test_memory_lineage_walks_parents_back_to_evidence():
    r = load_runs(RUNS)
    log = str(RUNS / 'scripted' / 'transcripts' / 'infra-root-causes.jsonl')
    lin = memory_lineage(r.events, log)
    applied = r.turns[(r.turns.log == log) & r.turns.applied]
    assert list(lin.t) == list(applied.t) and lin.tokens.iloc[-1] == stats(log).memory_tokens
    added = lin.added[lin.added != '']          # an update may only repeat lines memory holds: it adds none
    assert all(lin.files.str.len() > 0) and len(added) >= len(lin) - 1 and all(added.str.startswith('- '))

def test_plots_are_titled_labelled_and_carry_the_query():
    r = load_runs(RUNS)
    for fig, title in [(plot_update_rates(r.runs), 'Update-rate per query'),
                       (plot_gate_raster(r.turns), 'Gate decisions per turn'),
                       (plot_memory(r.turns), 'Memory size over the run'),
                       (plot_events(r.turns), 'Budget and parse-failure events'),
                       (plot_latency(r.turns), 'Model latency per turn')]:
        ax = fig.axes[0]
        assert ax.get_title() == title and ax.get_xlabel() and ax.get_ylabel() and ax.get_legend() is not None
        text = ' '.join(t.get_text() for t in ax.get_yticklabels() + ax.get_legend().get_texts())
        assert 'infra-root-causes' in text, title
    lines = plot_update_rates(r.runs).axes[0].get_lines()
    assert any(abs(l.get_xdata()[0] - 30) < 1e-9 for l in lines)   # the 30% line

def test_report_command_writes_pngs_and_an_index_linking_them(tmp_path):
    r = subprocess.run([sys.executable, '-m', 'memgate.cli', 'report', str(RUNS), '--out', str(tmp_path)],
                       capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == str(tmp_path / 'index.html')
    pngs = sorted(p.name for p in tmp_path.glob('*.png'))
    assert pngs == ['events.png', 'gate_raster.png', 'latency.png', 'memory.png', 'update_rate.png']
    for p in tmp_path.glob('*.png'): assert p.read_bytes()[:8] == b'\x89PNG\r\n\x1a\n' and p.stat().st_size > 20_000
    index = (tmp_path / 'index.html').read_text()
    assert sorted(re.findall(r'<img src="([^"]+)"', index)) == pngs
    for run in load_runs(RUNS).runs.run: assert run in index

def test_report_over_two_projects_with_the_same_queries_tells_them_apart(tmp_path):
    import html, shutil
    from memgate.show import learned
    for project in ('alpha', 'beta'):
        shutil.copytree(FIXTURES / 'transcripts', tmp_path / project)
        r = subprocess.run([sys.executable, '-m', 'memgate.cli', 'ingest', '--project', str(tmp_path / project),
                            '--model', 'keyword-baseline', '--limit', '5', '--log-dir', str(tmp_path / 'runs')],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    runs = load_runs(tmp_path / 'runs')
    assert sorted(set(runs.runs.project)) == ['alpha', 'beta'] and len(runs.runs) == 8
    ax = plot_update_rates(runs.runs).axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert len(set(labels)) == 8 and 'alpha · infra-root-causes (keyword baseline)' in labels
    assert 'beta · infra-root-causes (keyword baseline)' in labels
    assert all(t.get_position()[0] <= ax.get_xlim()[1] for t in ax.texts)         # value labels inside the axes
    assert {'update-rate, model', 'update-rate, baseline'} <= {t.get_text() for t in ax.get_legend().get_texts()}
    out = tmp_path / 'report'
    r = subprocess.run([sys.executable, '-m', 'memgate.cli', 'report', str(tmp_path / 'runs'), '--out', str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    pngs = sorted(p.name for p in out.glob('*.png'))
    assert pngs == ['events.png', 'gate_raster.png', 'memory.png', 'update_rate.png']    # no latency: none waited
    index = (out / 'index.html').read_text()
    assert sorted(set(re.findall(r'<img src="([^"]+)"', index))) == pngs and '<th>project</th>' in index
    for log in sorted((tmp_path / 'runs').rglob('*.jsonl')):
        x = learned(log)
        assert f"<h3>{x.project} · {x.query} (keyword baseline)</h3>" in index and html.escape(x.memory) in index
