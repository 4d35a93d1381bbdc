"Finding projects: memgate projects lists them, and --project takes any name a user would try."
import json
from synth import cc, write_jsonl
from helpers import memgate

def fake_home(home):
    "Claude Code's folder for /home/u/projects/spotter, whose sessions ran in a worktree; and a second 'spot…' project."
    proj = home / '.claude' / 'projects'
    worktree = '/home/u/projects/spotter-worktrees/spotter-dov'
    write_jsonl(proj / '-home-u-projects-spotter' / 'S1.jsonl',
                [cc('user', '2026-01-01T10:00:00Z', 'the build fails: error in CI', sid='S1', cwd=worktree),
                 cc('assistant', '2026-01-01T10:00:01Z', [dict(type='text', text='fixed the CI error')], sid='S1',
                    cwd=worktree)])
    write_jsonl(proj / '-home-u-projects-spotlight' / 'S2.jsonl',
                [cc('user', '2026-02-01T10:00:00Z', 'hello', sid='S2', cwd='/home/u/projects/spotlight')])
    return dict(CLAUDE_CONFIG_DIR=str(home / '.claude'), CODEX_HOME=str(home / '.codex'))

def test_projects_lists_them_with_their_names(tmp_path):
    env = fake_home(tmp_path)
    r = memgate('projects', '--format', 'json', **env)
    rows = json.loads(r.stdout)
    assert r.returncode == 0 and [(x['name'], x['folder'], x['sessions']) for x in rows] == [
        ('spotlight', '-home-u-projects-spotlight', 1), ('spotter-dov', '-home-u-projects-spotter', 1)]
    assert rows[1]['cwd'] == '/home/u/projects/spotter-worktrees/spotter-dov' and rows[1]['tools'] == ['claude']

def test_project_takes_the_folder_its_tail_the_cwds_last_folder_and_refuses_an_ambiguous_prefix(tmp_path):
    env = fake_home(tmp_path)
    for name in ('spotter', 'spotter-dov', '-home-u-projects-spotter', 'dov'):
        r = memgate('chunks', '--project', name, **env)
        assert r.returncode == 0 and len(r.stdout.splitlines()) == 2, (name, r.stderr)   # a header, a chunk
    r = memgate('chunks', '--project', 'spot', **env)
    assert r.returncode == 2 and r.stderr.splitlines() == [
        "memgate chunks: error: project 'spot' could be any of: spotlight (/home/u/projects/spotlight), spotter-dov "
        "(/home/u/projects/spotter-worktrees/spotter-dov); name one of them"]
    r = memgate('chunks', '--project', 'nothing-like-it', **env)
    assert r.returncode == 2 and 'projects: spotlight, spotter-dov; memgate projects lists them' in r.stderr

def test_since_until_and_session_select_what_a_run_reads_and_resume_keeps_it(tmp_path):
    from conftest import FIXTURES
    from memgate.log import read_log
    project = FIXTURES / 'transcripts'
    r = memgate('chunks', '--project', project, '--since', '2025-09-25', '--until', '2025-09-25')
    assert r.returncode == 0 and '2 files, ' in r.stderr                     # the two Codex rollouts of that day
    r = memgate('chunks', '--project', project, '--session', 'fe5e1c67')
    assert r.returncode == 0 and all('2025-09-03' in l for l in r.stdout.splitlines()[1:])
    r = memgate('chunks', '--project', project, '--since', '2030-01-01')
    assert r.returncode == 2 and "is selected: started on or after 2030-01-01" in r.stderr
    run = lambda *a: memgate('ingest', '--project', project, '--model', 'keyword-baseline', '--query', 'conventions',
                             '--log-dir', tmp_path, *a)
    assert run('--session', 'fe5e1c67', '--limit', '2').returncode == 0
    log = tmp_path / 'transcripts' / 'conventions.jsonl'
    assert read_log(log).events[0]['config']['selection'] == {'sessions': ['fe5e1c67']}
    r = run('--resume')
    assert r.returncode == 1
    assert "selection was {'sessions': ['fe5e1c67']} when this log was written, now {}" in r.stderr
    assert run('--resume', '--session', 'fe5e1c67').returncode == 0

def test_a_cwd_of_dots_names_no_project_dot_dot(tmp_path):
    "A session whose cwd is /../../.. was listed as a project named `..`, and that name then read the parent folder."
    proj = tmp_path / '.claude' / 'projects'
    write_jsonl(proj / '-dots' / 'S1.jsonl', [cc('user', '2026-01-01T10:00:00Z', 'the deploy failed', cwd='/../../..')])
    env = dict(CLAUDE_CONFIG_DIR=str(tmp_path / '.claude'), CODEX_HOME=str(tmp_path / '.codex'))
    (row,) = json.loads(memgate('projects', '--format', 'json', **env).stdout)
    assert row['name'] not in ('', '.', '..') and '/' not in row['name'] and not row['name'].startswith('.'), row
    r = memgate('chunks', '--project', row['name'], **env)
    assert r.returncode == 0 and len(r.stdout.splitlines()) == 2, r.stderr             # its own session, nothing above
