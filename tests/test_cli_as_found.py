"The command line as a careful new user finds it (issue 20): one test per thing found wrong; refusals' advice works."
import json, shutil, subprocess, sys
from pathlib import Path
from conftest import FIXTURES, ROOT
from helpers import docs_text, memgate
from memgate.testing import FakeServer
from synth import cc, write_jsonl
from memgate.log import read_log

PROJECT = FIXTURES / 'transcripts'
BASELINE = ('--model', 'keyword-baseline', '--quiet')

def ingest(*args, **env): return memgate('ingest', '--project', *map(str, args), *BASELINE, **env)
# --quiet leaves the cost line out too: the tests of what it says run without it
def told(*args, **env): return memgate('ingest', '--project', *map(str, args), *BASELINE[:2], **env)

def test_export_needs_no_project_skips_unlabelled_logs_saying_so_and_leaves_no_partial_file(tmp_path):
    runs, out = tmp_path / 'runs', tmp_path / 'train.jsonl'
    assert ingest(PROJECT, '--log-dir', runs).returncode == 0
    r = memgate('export', runs, '--labels', ROOT / 'labels', '--format', 'chat', '--out', out)
    assert r.returncode == 0, r.stderr
    assert len(out.read_text().splitlines()) == 62
    assert r.stderr.count('skipped, not labelled: ') == 2 and 'conventions.jsonl (no ' in r.stderr
    assert r.stderr.splitlines()[-1] == f'wrote 62 turns of 2 logs to {out}'
    bad = tmp_path / 'labels' / 'transcripts'
    shutil.copytree(ROOT / 'labels' / 'transcripts', bad)
    text = (bad / 'infra-root-causes.toml').read_text().replace('sha = "', 'sha = "0', 1)
    (bad / 'infra-root-causes.toml').write_text(text)
    out2 = tmp_path / 'second.jsonl'
    r = memgate('export', runs, '--labels', tmp_path / 'labels', '--out', out2)
    assert r.returncode == 2 and not out2.exists() and sorted(p.name for p in tmp_path.iterdir()) == [
        'labels', 'runs', 'train.jsonl']                            # no partial file, no temporary left

def test_dates_are_parsed_strictly_and_an_invalid_one_is_one_line_naming_the_option(tmp_path):
    for bad, option in (('yesterday', '--until'), ('2025-13-45', '--since'), ('2025-09', '--since')):
        r = memgate('chunks', '--project', PROJECT, option, bad)
        assert r.returncode == 2 and r.stderr.splitlines() == [
            f"memgate chunks: error: {option} {bad!r} is not a date: give YYYY-MM-DD, YYYYMMDD or an ISO date and time "
            "(2025-09-03T14:00, times in UTC unless they say otherwise)"]
    one_day = [memgate('chunks', '--project', PROJECT, '--since', d, '--until', d).stdout
               for d in ('2025-09-25', '20250925')]
    assert one_day[0] == one_day[1] and len(one_day[0].splitlines()) == 1 + 11       # header + the two rollouts
    r = memgate('chunks', '--project', PROJECT, '--since', '2030-01-01')
    assert r.returncode == 2 and r.stderr.strip().endswith('is selected: started on or after 2030-01-01')

def _two_workspaces(root: Path) -> tuple[Path, Path]:
    "Two projects whose folders are both called workspace, one Codex and one Claude Code."
    a, b = root / 'codex' / 'workspace', root / 'claude' / 'workspace'
    shutil.copytree(PROJECT / 'codex', a)
    shutil.copytree(PROJECT / 'claude-code', b)
    return a, b

def test_two_projects_of_one_folder_name_log_apart_and_the_exists_advice_is_true(tmp_path):
    a, b = _two_workspaces(tmp_path)
    runs = tmp_path / 'runs'
    one = ('--query', 'conventions', '--limit', '2', '--log-dir', runs)
    assert ingest(a, *one).returncode == 0 and ingest(b, *one).returncode == 0
    assert sorted(p.name for p in runs.iterdir()) == ['claude-workspace', 'workspace']
    assert read_log(runs / 'claude-workspace' / 'conventions.jsonl').events[0]['source'] == str(b.resolve())
    r = ingest(b, *one)                                 # the same project again: its own log, and the advice holds
    assert r.returncode == 2 and 'claude-workspace/conventions.jsonl exists' in r.stderr
    assert 'pass --resume to continue it, or --log-dir DIR for a new log' in r.stderr
    assert ingest(b, '--query', 'conventions', '--limit', '3', '--log-dir', runs, '--resume').returncode == 0
    assert ingest(b, *one[:-1], tmp_path / 'elsewhere').returncode == 0

def test_a_folder_with_no_session_file_is_an_error_naming_what_it_found(tmp_path):
    (tmp_path / 'junk.jsonl').write_text('hello\n')
    (tmp_path / 'empty.jsonl').write_text('')
    r = ingest(tmp_path, '--log-dir', tmp_path / 'runs')
    assert r.returncode == 2 and r.stderr.splitlines() == [
        f"memgate ingest: error: {tmp_path}: none of its 2 *.jsonl files is a Claude Code or Codex session "
        "(1 empty file, 1 not a Claude Code or Codex session file): nothing to read"]
    assert not (tmp_path / 'runs').exists()

def test_answer_asks_once_per_memory_and_again_asks_anew(tmp_path):
    runs = tmp_path / 'runs'
    assert ingest(PROJECT, '--query', 'conventions', '--limit', '2', '--log-dir', runs).returncode == 0
    log = runs / 'transcripts' / 'conventions.jsonl'
    answers = lambda: [e for e in read_log(log).events if e['kind'] == 'answer']
    first = memgate('answer', log)
    second = memgate('answer', log)
    assert first.returncode == second.returncode == 0 and len(answers()) == 1
    assert second.stderr == f'{log}: answered before from this memory, not asked again (--again asks anew)\n'
    assert second.stdout == first.stdout                       # the same answer, shown again
    assert memgate('answer', log, '--again').returncode == 0 and len(answers()) == 2
    assert 'the latest of 2' in memgate('show', log).stdout

def test_format_json_is_one_document_for_every_command(tmp_path):
    runs = tmp_path / 'runs'
    r = memgate('ingest', '--project', PROJECT, '--limit', '2', '--log-dir', runs, '--format', 'json', *BASELINE)
    docs = {'ingest': r.stdout}
    for cmd, *args in (('stats', runs), ('show', runs), ('chunks', '--project', PROJECT), ('eval', FIXTURES / 'runs')):
        docs[cmd] = memgate(cmd, *args, '--format', 'json').stdout
    shutil.copytree(PROJECT / 'codex', tmp_path / 'codex' / 'sessions')
    docs['projects'] = memgate('projects', '--format', 'json', CLAUDE_CONFIG_DIR=str(tmp_path / 'claude'),
                               CODEX_HOME=str(tmp_path / 'codex')).stdout
    lengths = {cmd: len(json.loads(text)) for cmd, text in docs.items()}      # json.loads: one document each
    assert lengths == dict(ingest=4, stats=4, show=4, chunks=31, eval=4, projects=1)

def test_projects_with_no_sessions_says_where_it_looked_and_fails(tmp_path):
    r = memgate('projects', CLAUDE_CONFIG_DIR=str(tmp_path / 'c'), CODEX_HOME=str(tmp_path / 'x'))
    assert r.returncode == 2 and r.stderr.splitlines() == [
        f"memgate projects: error: no Claude Code or Codex sessions under {tmp_path / 'c' / 'projects'}, "
        f"{tmp_path / 'x' / 'sessions'} or {tmp_path / 'x' / 'archived_sessions'} (set CLAUDE_CONFIG_DIR or "
        "CODEX_HOME if they are elsewhere)"]

def test_nothing_listening_at_the_base_url_is_one_line_at_once_and_leaves_no_log(tmp_path):
    "17-24 s of retries, a cost line that blamed the context, and a failed log for a run that never reached a server."
    runs = tmp_path / 'runs'
    r = memgate('ingest', '--project', PROJECT, '--query', 'conventions', '--log-dir', runs,
                '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm')
    assert r.returncode == 2 and r.stdout == '' and len(r.stderr.splitlines()) == 1, r.stderr
    assert r.stderr.startswith('memgate ingest: error: nothing is listening at http://127.0.0.1:9/v1 (')
    assert r.stderr.rstrip().endswith('start the model server, or pass the --base-url it listens at')
    assert 'context' not in r.stderr and 'retrying' not in r.stderr and not runs.exists()

def test_a_run_that_never_reached_the_model_says_why_in_its_summary_and_in_show(tmp_path):
    runs = tmp_path / 'runs'
    with FakeServer(models=('another-model',)) as server:           # it answers 404: no model m
        r = memgate('ingest', '--project', PROJECT, '--query', 'conventions', '--log-dir', runs, '--quiet',
                    '--base-url', server.url, '--model', 'm', '--retries', '0')
    assert r.returncode == 1
    assert r.stdout.startswith('conventions: failed before any turn (the reason is printed on stderr)')
    assert 'run -' not in r.stdout
    shown = memgate('show', runs).stdout
    assert 'the last run failed: ' in shown and 'memory: none (the run failed before any turn)' in shown

def _built(build, folder, progress=False) -> Path:
    "A 3 MB synthetic project (`bench/synth_project.py`) in `folder`."
    build(folder, 3, progress=progress)
    return folder

def _cost_line(stderr: str) -> str:
    "A run's cost line: said once its first chunk went out, after where it resumes or the server's pace, if at all."
    return next((line for line in stderr.splitlines() if ' model call' in line), '')

def test_the_chunk_estimate_is_within_15_percent_and_a_resume_counts_only_unread_turns(tmp_path):
    sys.path.insert(0, str(ROOT / 'bench'))
    from synth_project import build
    from memgate.projects import load_project
    from memgate.chunking import chunk_project, estimate_chunks
    made = {}
    for name, folder in (('bundled', PROJECT), ('synth', _built(build, tmp_path / 'synth')),
                         ('synth 2.1', _built(build, tmp_path / 'synth-progress', progress=True))):
        p = load_project(folder)
        made[name] = (estimate_chunks(p), sum(1 for _ in chunk_project(p)))
    assert all(abs(est / n - 1) <= 0.15 for est, n in made.values()), made
    runs = tmp_path / 'runs'
    assert ingest(PROJECT, '--query', 'conventions', '--limit', '20', '--log-dir', runs).returncode == 0
    r = memgate('ingest', '--project', PROJECT, '--query', 'conventions', '--log-dir', runs, '--resume', '--limit',
                'all', *BASELINE[:2])
    # (said once its first chunk went out: after the line that says where it resumes, before any turn's)
    cost = _cost_line(r.stderr)
    assert ' x 1 query, about 20 of those turns logged before = about 11 model calls ' in cost, cost

def test_ingest_answer_exits_1_when_an_answer_fails(tmp_path):
    runs, rec = tmp_path / 'runs', tmp_path / 'rec.jsonl'
    from memgate.testing import FakeServer
    with FakeServer() as s:
        args = ('ingest', '--project', PROJECT, '--query', 'conventions', '--limit', '2', '--quiet', '--model',
                'test-model')
        assert memgate(*args, '--base-url', s.url, '--log-dir', runs, MEMGATE_RECORD=str(rec)).returncode == 0
    r = memgate(*args, '--replay', rec, '--log-dir', tmp_path / 'again', '--answer')     # no answer was recorded
    assert r.returncode == 1 and 'not answered' in r.stderr

def test_project_names_are_unique_and_the_listed_name_resolves_and_names_the_log_folder(tmp_path):
    home = tmp_path / '.claude' / 'projects'
    for cwd in ('/w/codex/workspace', '/w/claude/workspace'):
        write_jsonl(home / cwd.replace('/', '-') / 'S.jsonl',
                    [cc('user', '2026-01-01T10:00:00Z', f'work in {cwd}: the build failed', sid='S', cwd=cwd)])
    env = dict(CLAUDE_CONFIG_DIR=str(tmp_path / '.claude'), CODEX_HOME=str(tmp_path / '.codex'))
    rows = json.loads(memgate('projects', '--format', 'json', **env).stdout)
    assert [x['name'] for x in rows] == ['claude-workspace', 'codex-workspace']
    r = memgate('chunks', '--project', 'workspace', **env)
    assert r.returncode == 2 and 'could be any of: claude-workspace (/w/claude/workspace), codex-workspace' in r.stderr
    runs = tmp_path / 'runs'
    assert memgate('ingest', '--project', 'codex-workspace', '--log-dir', runs, '--query', 'conventions', *BASELINE,
                   **env).returncode == 0
    assert [p.name for p in runs.iterdir()] == ['codex-workspace']
    log = runs / 'codex-workspace' / 'conventions.jsonl'
    start = read_log(log).events[0]
    assert (start['source'], start['listed']) == ('/w/codex/workspace', True)
    r = memgate('prompt', '--log', log, '--chunk', '1', **env)             # the log knows its project
    assert r.returncode == 0 and 'work in /w/codex/workspace' in r.stdout

def test_small_things_plurals_headers_and_what_a_checkout_ignores(tmp_path):
    r = memgate('ingest', '--project', PROJECT, '--query', 'conventions', '--limit', '1', '--log-dir', tmp_path,
                *BASELINE[:2])
    assert ' x 1 query = about 1 model call ' in _cost_line(r.stderr)
    head = memgate('chunks', '--project', PROJECT).stdout.splitlines()[0]
    assert head.split() == ['chunk', 'tokens', 'records', 'first', 'record', 'at', 'sha']
    ignored = subprocess.run(['git', 'check-ignore', 'report/index.html', 'train.jsonl', 'runs-ungated/x.jsonl'],
                             cwd=ROOT, capture_output=True, text=True)
    assert ignored.stdout.split() == ['report/index.html', 'train.jsonl', 'runs-ungated/x.jsonl']

def test_lists_of_objects_in_tool_inputs_read_as_lines():
    chunks = json.loads(memgate('chunks', '--project', PROJECT / 'claude-code', '--format', 'json').stdout)
    escaped = sum(c['text'].count('\\n') for c in chunks)
    assert escaped <= 461 * 0.05, escaped          # 461 before: MultiEdit's edits as JSON; left: an `echo -e "\n\nn"`
    assert any('  edits:\n    - old_string:\n' in c['text'] for c in chunks)

def test_the_advice_of_each_refusal_works_when_followed(tmp_path):
    runs = tmp_path / 'runs'
    assert ingest(PROJECT, '--query', 'conventions', '--limit', '1', '--log-dir', runs).returncode == 0
    refused = ingest(PROJECT, '--query', 'conventions', '--limit', '2', '--log-dir', runs)
    assert refused.returncode == 2 and 'pass --resume to continue it, or --log-dir DIR' in refused.stderr
    assert ingest(PROJECT, '--query', 'conventions', '--limit', '2', '--log-dir', runs, '--resume').returncode == 0
    assert ingest(PROJECT, '--query', 'conventions', '--limit', '2', '--log-dir', tmp_path / 'new').returncode == 0
    r = memgate('prompt', '--project', PROJECT, '--chunk', '1')
    assert r.returncode == 2 and 'pass --query ID, or --log LOG' in r.stderr
    assert memgate('prompt', '--project', PROJECT, '--chunk', '1', '--query', 'conventions').returncode == 0
    assert memgate('prompt', '--chunk', '1', '--log', runs / 'transcripts' / 'conventions.jsonl').returncode == 0
    r = memgate('export', runs, '--labels', tmp_path / 'none', '--out', tmp_path / 'x.jsonl')
    assert r.returncode == 2 and 'pass --labels DIR, or none' in r.stderr
    assert memgate('export', runs, '--out', tmp_path / 'x.jsonl').returncode == 0
    r = memgate('ingest', '--project', PROJECT, '--query', 'conventions', '--log-dir', tmp_path / 'm')
    assert r.returncode == 2 and '--base-url' in r.stderr
    assert memgate('ingest', '--project', PROJECT, '--query', 'conventions', '--log-dir', tmp_path / 'm', '--limit',
                   '1', '--model', 'keyword-baseline').returncode == 0

def test_the_chunk_estimate_holds_on_session_files_of_few_large_lines(tmp_path):
    "Claude Code 2.1 writes a tool's whole output as one line: sampled from their middles, they counted as nothing."
    from memgate.projects import load_project
    from memgate.chunking import chunk_project, estimate_chunks
    rows = []
    at = lambda j: f'2026-01-01T10:{j // 60:02d}:{j % 60:02d}.000Z'
    for i in range(60):
        out = ''.join(f'{i}:{k} GET /api/items/{k * 7919 % 10007} 200 {k % 97}ms worker-{k % 5}\n'
                      for k in range(2500 + 40 * i))
        rows += [cc('user', at(2 * i), f'step {i}: run the load test again'),
                 cc('user', at(2 * i + 1), [dict(type='tool_result', tool_use_id=f't{i}', content=out)])]
    folder = tmp_path / 'few-large-lines'
    write_jsonl(folder / 'S1.jsonl', rows)
    assert (folder / 'S1.jsonl').stat().st_size > 8 * 2**20          # sampled, not read whole
    p = load_project(folder)
    est, made = estimate_chunks(p), sum(1 for _ in chunk_project(p))
    assert abs(est / made - 1) <= 0.15, (est, made)

def test_resume_of_a_complete_log_keeps_its_limit_and_a_new_limit_counts_all_told(tmp_path):
    "A complete --limit 5 log carried on to 31 chunks under a bare --resume; the README says a complete log is a no-op."
    runs = tmp_path / 'runs'
    log = runs / 'transcripts' / 'conventions.jsonl'
    resume = lambda *a: ingest(PROJECT, '--query', 'conventions', '--log-dir', runs, '--resume', *a)
    assert ingest(PROJECT, '--query', 'conventions', '--log-dir', runs, '--limit', '5').returncode == 0
    before = log.read_bytes()
    for n, again in ((5, resume()), (5, resume('--limit', '5')), (3, resume('--limit', '3'))):
        assert again.returncode == 0 and log.read_bytes() == before, again.stderr
        assert again.stderr.splitlines()[-1] == (f'{log}: already complete at t=5; nothing to do (it reads under '
                                                 f'--limit {n}: --limit all reads on)')
    eight = told(PROJECT, '--query', 'conventions', '--log-dir', runs, '--resume', '--limit', '8')
    assert eight.returncode == 0 and read_log(log).events[-1]['chunks_seen'] == 8
    # the cost line counts the turns the limit leaves (3), not every chunk the log has not read (26)
    assert ' x 1 query, about 5 of those turns logged before = about 3 model calls ' in _cost_line(eight.stderr)
    assert resume().returncode == 0 and read_log(log).events[-1]['chunks_seen'] == 8      # the limit it ran under last
    assert resume('--limit', 'all').returncode == 0 and read_log(log).events[-1]['chunks_seen'] == 31
    starts = [e for e in read_log(log).events if e['kind'] == 'run_start']
    assert [e.get('limit') for e in starts] == [5, 8, None]

def test_an_interrupted_or_failed_run_ends_with_the_command_that_resumes_it(tmp_path):
    runs = tmp_path / 'runs'
    from memgate.testing import FakeServer
    args = ['ingest', '--project', str(PROJECT), '--query', 'conventions', '--log-dir', str(runs), '--limit', '4',
            '--retries', '0', '--quiet']
    with FakeServer(faults=['ok', 'unknown-field'], models=('test-model',)) as s:
        r = memgate(*args, '--base-url', s.url, '--model', 'test-model')
    again = f"go on where it stopped with: memgate {' '.join(args)} --base-url {s.url} --model test-model --resume"
    assert r.returncode == 1 and r.stderr.splitlines()[-1] == again, r.stderr
    assert '  failed (the reason is printed on stderr)' in r.stdout and 'answered HTTP' not in r.stdout
    assert sum('answered HTTP' in line for line in r.stderr.splitlines()) == 1

def test_a_run_whose_answers_never_parsed_says_so_and_is_not_called_undiscriminating(tmp_path):
    "show said 'memory: none (the gate never opened)'; the cost line said 'a unknown server'."
    from memgate.testing import FakeServer
    with FakeServer(gate=lambda prompt: 'I think yes, this one matters.') as s:
        r = memgate('ingest', '--project', PROJECT, '--query', 'conventions', '--log-dir', tmp_path, '--limit', '3',
                    '--base-url', s.url, '--model', 'test-model')
    free = 'answers free-form (no grammar option known for such a server; each is still parsed)'
    # (the cost line says it, once the first chunk went out: a line of the server's pace may come first)
    assert r.returncode == 1 and free in _cost_line(r.stderr)
    assert 'not discriminating' not in r.stderr
    assert "the model does not follow the prompt's format" in r.stderr
    shown = memgate('show', tmp_path).stdout
    assert 'memory: none (no answer was in the gate format in 3 turns)' in shown, shown

def test_a_venv_in_the_checkout_is_ignored_by_git():
    "`.venv/` was not in .gitignore: a newcomer's `python -m venv .venv` showed thousands of untracked files."
    r = subprocess.run(['git', 'check-ignore', '-q', '.venv/bin/python'], cwd=ROOT)
    assert r.returncode == 0

def test_the_readme_says_the_defaults_the_command_has():
    "The README said --timeout defaulted to 300 when it was 600."
    from memgate.cli import build_parser
    from memgate.client import CONCURRENCY
    ingest_parser = build_parser()._subparsers._group_actions[0].choices['ingest']
    default = {a.dest: a.default for a in ingest_parser._actions}
    readme = ' '.join(docs_text().split())
    for said in (f"`--timeout` (default {default['timeout']:g}) is the silence allowed",
                 f"N times (default {default['retries']})",
                 f"(`--concurrency`, default: the slots the server says it has, else {CONCURRENCY} requests",
                 f"(default {default['retry_temperature']:g}", f"`max_tokens {default['max_tokens']}`"):
        assert said in readme, said

def test_verify_head_that_is_no_head_says_so_and_the_real_head_verifies():
    log = FIXTURES / 'runs' / 'scripted' / 'transcripts' / 'infra-root-causes.jsonl'
    for given in ('HEAD', '1b4a49', 'not-hex-at-all!'):
        r = memgate('verify', log, '--head', given)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert 'is not a head' in r.stderr and 'cut off' not in r.stderr and 'Traceback' not in r.stderr
    from memgate.log import log_head
    r = memgate('verify', log, '--head', log_head(log)[1].upper())      # as printed, in either case
    assert r.returncode == 0 and ': ok:' in r.stdout, r.stderr

def claude_21_project(home: Path, copies: int = 3) -> Path:
    """A Claude Code 2.1 layout under `home`/.claude: each session `<sid>.jsonl` (progress records after each
    message) with two sub-agents in `<sid>/subagents/agent-*.jsonl`, made of the bundled sessions with fresh ids."""
    sys.path.insert(0, str(ROOT / 'bench'))
    from synth_project import fresh_ids, with_progress
    main, agent = (PROJECT / 'claude-code' / n for n in ('fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl',
                                                           'full-session-four.jsonl'))
    folder = home / '.claude' / 'projects' / '-home-dev-shop'
    for k in range(copies):
        (folder / f's{k}' / 'subagents').mkdir(parents=True)
        (folder / f's{k}.jsonl').write_bytes(with_progress(fresh_ids(main.read_bytes(), k)))
        for a in range(2):
            (folder / f's{k}' / 'subagents' / f'agent-a{k}{a}.jsonl').write_bytes(
                with_progress(fresh_ids(agent.read_bytes(), 10 * k + a + 100)))
    return folder

def test_projects_counts_sessions_as_started_and_estimates_chunks_as_the_run_does(tmp_path):
    "Issue 41: '3 sessions' was said of one session and its two sub-agent files, and ~78 chunks of 49 read."
    folder = claude_21_project(tmp_path)
    env = dict(CLAUDE_CONFIG_DIR=str(tmp_path / '.claude'), CODEX_HOME=str(tmp_path / '.codex'))
    [row] = json.loads(memgate('projects', '--format', 'json', **env).stdout)
    made = len(json.loads(memgate('chunks', '--project', folder, '--format', 'json').stdout))
    assert (row['sessions'], row['agent_files'], made) == (3, 6, 72)
    assert abs(row['chunks_about'] / made - 1) <= 0.15, (row['chunks_about'], made)
    line = memgate('projects', **env).stdout
    assert ' 3 sessions (+6 sub-agent files)  ' in line and f" ~{row['chunks_about']} chunks " in line
    cost = _cost_line(told(row['name'], '--query', 'conventions', '--log-dir', tmp_path / 'runs', **env).stderr)
    assert cost.startswith(f"Demo: about {row['chunks_about']} chunks (15.0 MB of sessions) x 1 query "), cost
