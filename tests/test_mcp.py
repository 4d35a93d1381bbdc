"`memgate mcp` as a subprocess, driven by the MCP SDK's own stdio client: its tools, its resource, its errors."
import asyncio, json, os, re, shutil, subprocess, sys
import pytest
from conftest import FIXTURES, ROOT, run

mcp = pytest.importorskip('mcp', reason="the mcp extra is not installed (pip install -e '.[mcp]')")
from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402

LOGS = FIXTURES / 'runs' / 'scripted'

def session_of(*argv, call):
    "Start `memgate mcp ARGV` and run `call(session)` in an initialized client session; its result."
    params = StdioServerParameters(command=sys.executable, args=['-m', 'memgate.cli', 'mcp', *argv],
                                   cwd=str(ROOT), env=dict(os.environ, PYTHONPATH=str(ROOT)))
    async def go():
        async with stdio_client(params, errlog=open(os.devnull, 'w')) as (read, write):
            async with ClientSession(read, write) as s:
                await s.initialize()
                return await call(s)
    # a tool that hangs (a FIFO opened, say) fails the test, not the whole suite
    return run(asyncio.wait_for(go(), 120))

def text(result) -> str: return result.content[0].text

def shown_json(query: str) -> dict:
    "`memgate show --format json`'s entry for `query` over the scripted logs."
    out = subprocess.run([sys.executable, '-m', 'memgate.cli', 'show', str(LOGS), '--query', query, '--format', 'json'],
                         capture_output=True, text=True, cwd=ROOT, check=True).stdout
    return json.loads(out)[0]

def test_the_server_lists_its_five_tools_and_the_memory_resource():
    async def call(s):
        return [t.name for t in (await s.list_tools()).tools], \
               [t.uri_template for t in (await s.list_resource_templates()).resource_templates]
    tools, templates = session_of('--log-dir', str(LOGS), call=call)
    assert tools == ['memories', 'memory', 'evidence', 'answer', 'search']
    assert templates == ['memgate://{project}/{query}/memory']

def test_each_tool_answers_and_the_memory_is_the_one_show_prints():
    async def call(s):
        return (json.loads(text(await s.call_tool('memories', {})))['memories'],
                json.loads(text(await s.call_tool('memory', {'query': 'infra-root-causes'}))),
                json.loads(text(await s.call_tool('evidence', {'query': 'infra-root-causes', 't': 1}))),
                json.loads(text(await s.call_tool('search', {'text': 'error handling'}))),
                await s.call_tool('answer', {'query': 'conventions'}),
                await s.read_resource('memgate://transcripts/design-decisions/memory'))
    every, mem, ev, found, answer, res = session_of('--log-dir', str(LOGS), call=call)
    show = shown_json('infra-root-causes')
    assert [(e['project'], e['query']) for e in every] == [('transcripts', q) for q in
        ('build-and-test-failures', 'conventions', 'design-decisions', 'infra-root-causes')]
    assert mem['memory'] == show['memory'] and mem['memory']
    assert [u['t'] for u in mem['lineage']] == [u['t'] for u in show['updates']]
    assert next(e for e in every if e['query'] == 'infra-root-causes')['memory'] == show['memory']
    # the evidence is the chunk exactly as the log holds it (redacted as it was sent)
    events = [json.loads(line) for line in (LOGS / 'transcripts' / 'infra-root-causes.jsonl').read_text().splitlines()]
    assert ev['text'] == next(e['text'] for e in events if e['kind'] == 'evidence' and e['t'] == 1)
    assert found['count'] == 87 and all('error handling' in m['line'].lower() for m in found['matches'])
    # no answer stored: a tool error that says how to make one
    assert answer.is_error and 'has no stored answer: memgate answer' in text(answer)
    assert json.loads(res.contents[0].text)['memory'] == shown_json('design-decisions')['memory']
    # served as data: beside the memory, a notice that it is untrusted text
    assert mem['notice'].startswith('untrusted text') and json.loads(res.contents[0].text)['notice'] == mem['notice']

def test_bad_arguments_are_tool_errors_in_one_line_not_tracebacks():
    async def call(s):
        return [await s.call_tool('memory', {'query': 'nope'}),
                await s.call_tool('evidence', {'query': 'infra-root-causes', 't': 3}),
                await s.call_tool('search', {'text': '  '}),
                await s.call_tool('evidence', {'query': 'infra-root-causes'})]
    got = session_of('--log-dir', str(LOGS), call=call)
    assert all(r.is_error for r in got)
    said = [text(r) for r in got]
    assert "no log of query 'nope'" in said[0] and 'has no update at t=3' in said[1]
    assert 'give some text to look for' in said[2]
    assert all('Traceback' not in s and '\n' not in s.strip() for s in said[:3])

def test_a_log_that_does_not_verify_is_refused_and_a_linked_log_is_not_served(tmp_path):
    (tmp_path / 'p').mkdir()
    lines = (LOGS / 'transcripts' / 'conventions.jsonl').read_text().splitlines(True)
    (tmp_path / 'p' / 'conventions.jsonl').write_text(''.join(lines[:3]) + lines[3].replace('"t":', '"t": ', 1)
                                                      + ''.join(lines[4:]))
    (tmp_path / 'p' / 'infra.jsonl').symlink_to(LOGS / 'transcripts' / 'infra-root-causes.jsonl')
    (tmp_path / 'p' / 'design.jsonl').write_bytes((LOGS / 'transcripts' / 'design-decisions.jsonl').read_bytes())
    async def call(s):
        return (await s.call_tool('memory', {'query': 'conventions'}),
                await s.call_tool('memory', {'query': 'infra-root-causes'}),
                json.loads(text(await s.call_tool('memories', {})))['memories'])
    edited, linked, every = session_of('--log-dir', str(tmp_path), call=call)
    assert edited.is_error and 'does not verify' in text(edited)
    assert linked.is_error and "no log of query 'infra-root-causes'" in text(linked)
    # the broken log is listed with its reason; the good one is served as ever; the linked one is not there
    assert [(e['query'], e['memory'] is None, 'does not verify' in e.get('error', '')) for e in every] == \
        [('conventions', True, True), ('design-decisions', False, False)]
    assert every[1]['memory'] == shown_json('design-decisions')['memory']

def test_a_broken_log_and_a_file_that_is_no_log_hide_nothing_from_memory_and_search(tmp_path):
    (tmp_path / 'p').mkdir()
    lines = (LOGS / 'transcripts' / 'conventions.jsonl').read_text().splitlines(True)
    edited = tmp_path / 'p' / 'conventions.jsonl'
    edited.write_text(''.join(lines[:3]) + lines[3].replace('"t":', '"t": ', 1) + ''.join(lines[4:]))
    (tmp_path / 'p' / 'notes.jsonl').write_text('not a log\n')
    (tmp_path / 'p' / 'infra.jsonl').write_bytes((LOGS / 'transcripts' / 'infra-root-causes.jsonl').read_bytes())
    async def call(s):
        return (json.loads(text(await s.call_tool('memory', {'query': 'infra-root-causes'}))),
                json.loads(text(await s.call_tool('search', {'text': 'port'}))),
                await s.call_tool('memory', {'query': 'nope'}))
    mem, found, missing = session_of('--log-dir', str(tmp_path), call=call)
    assert mem['memory'] == shown_json('infra-root-causes')['memory']
    assert found['count'] > 0 and {m['query'] for m in found['matches']} == {'infra-root-causes'}
    # what was not searched is named, with why
    assert [(s['log'], 'does not verify' in s['error']) for s in found['skipped']] == [
        (str(edited), True), (str(tmp_path / 'p' / 'notes.jsonl'), True)]
    assert missing.is_error and f"not memgate logs: {tmp_path / 'p' / 'notes.jsonl'}" in text(missing)

def test_a_log_folder_that_is_not_there_is_one_line_and_exit_2():
    r = subprocess.run([sys.executable, '-m', 'memgate.cli', 'mcp', '--log-dir', 'runs/nowhere'], capture_output=True,
                       text=True, cwd=ROOT, stdin=subprocess.DEVNULL)
    assert (r.returncode, r.stderr) == (2, 'memgate mcp: error: runs/nowhere: no such log folder\n')

def session_with_stderr(tmp_path, *argv, call):
    "`session_of`, with the server's stderr kept: (the result, what the server wrote to stderr)."
    err = tmp_path / 'stderr.txt'
    params = StdioServerParameters(command=sys.executable, args=['-m', 'memgate.cli', 'mcp', *argv],
                                   cwd=str(ROOT), env=dict(os.environ, PYTHONPATH=str(ROOT)))
    async def go():
        with open(err, 'w') as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as s:
                    await s.initialize()
                    return await call(s)
    return run(asyncio.wait_for(go(), 120)), err.read_text()

def test_argument_errors_are_one_line_and_echoed_input_is_bounded_and_visible(tmp_path):
    huge = 'q\x1b[2J\u202e' * 350_000
    async def call(s):
        return [await s.call_tool('evidence', {'query': 'infra-root-causes', 't': 'first'}),
                await s.call_tool('evidence', {'query': 'infra-root-causes'}),
                await s.call_tool('memory', {'query': huge}),
                await s.call_tool('search', {'text': ['not', 'a', 'string']})]
    got, err = session_with_stderr(tmp_path, '--log-dir', str(LOGS), call=call)
    said = [text(r) for r in got]
    assert all(r.is_error for r in got) and all('\n' not in s for s in said)
    assert 'evidence: bad arguments: t: input should be a valid integer' in said[0]
    assert 'validation error' not in said[0]
    assert 'evidence: bad arguments: t: field required' in said[1]
    echoed = re.search(r"no log of query '(.*?)'… \(([\d,]+) more characters\)", said[2])
    assert len(echoed[1]) <= 200 and echoed[2] == f'{len(huge) - 200:,}'
    assert '\x1b' not in said[2] and '\u202e' not in said[2] and '␛' in said[2]
    assert 'search: bad arguments: text:' in said[3]
    # the server's side: one line per error, nothing else
    assert len(err.splitlines()) == 4 and all(line.startswith('memgate mcp: ') for line in err.splitlines()), err

def test_resources_are_listed_and_a_malformed_log_is_listed_with_its_reason_never_fatal(tmp_path):
    shutil.copytree(LOGS, tmp_path / 'runs')
    (tmp_path / 'runs' / 'transcripts' / 'bad.jsonl').write_text('{"kind":"run_start"}\n')
    async def call(s):
        return ([r.name for r in (await s.list_resources()).resources],
                json.loads(text(await s.call_tool('memories', {})))['memories'],
                json.loads(text(await s.call_tool('memory', {'query': 'conventions'}))),
                json.loads(text(await s.call_tool('evidence', {'query': 'infra-root-causes', 't': 1}))))
    (names, every, mem, ev), err = session_with_stderr(tmp_path, '--log-dir', str(tmp_path / 'runs'), call=call)
    assert names == [f'transcripts/{q}' for q in ('build-and-test-failures', 'conventions', 'design-decisions',
                                                 'infra-root-causes')]
    bad = [e for e in every if e['log'].endswith('bad.jsonl')]
    assert len(bad) == 1 and bad[0]['memory'] is None and 'lacks field `run`' in bad[0]['error']
    assert mem['memory'] and ev['t'] == 1 and 'Traceback' not in err and 'KeyError' not in err

def test_a_resource_that_cannot_be_read_says_memgates_line_visibly():
    async def call(s):
        try: await s.read_resource('memgate://transcripts/nope%E2%80%AE/memory')
        except Exception as e: return str(e)
    said = session_of('--log-dir', str(LOGS), call=call)
    assert "no log of query 'nope⟨U+202E⟩' in project 'transcripts'" in said and '\u202e' not in said

def test_a_fifo_in_the_log_folder_hangs_no_tool_and_is_listed_with_its_reason(tmp_path):
    shutil.copytree(LOGS, tmp_path / 'runs')
    os.mkfifo(tmp_path / 'runs' / 'transcripts' / 'x.jsonl')
    async def call(s):
        return (json.loads(text(await s.call_tool('memories', {})))['memories'],
                json.loads(text(await s.call_tool('memory', {'query': 'conventions'}))),
                json.loads(text(await s.call_tool('search', {'text': 'port'}))))
    every, mem, found = session_of('--log-dir', str(tmp_path / 'runs'), call=call)
    fifo = [e for e in every if e['log'].endswith('x.jsonl')]
    assert len(fifo) == 1 and 'a FIFO, not a regular file' in fifo[0]['error'] and mem['memory']
    assert [s['log'] for s in found['skipped']] == [str(tmp_path / 'runs' / 'transcripts' / 'x.jsonl')]
