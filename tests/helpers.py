"Builders and command runners shared by the tests."
import os, subprocess, sys
from memgate.parser import gate_response
from memgate.domain import Chunk, Record, Role
from memgate.queries import Query

QUERY = Query('infra', 'Which infrastructure failures happened, with root cause and fix?')

def make_chunks(n, prefix='step'):
    "n small distinct chunks, t = 1..n."
    return [Chunk.from_records(i, [Record(Role.user, f'{prefix} {i}: run the migration', 's.jsonl', f'u{i}'),
                                   Record(Role.tool_result, f'{prefix} {i}: exit code {i % 3}', 's.jsonl', f'r{i}')])
            for i in range(1, n + 1)]

def yes(mem, exit=False): return gate_response(True, mem, exit, think='useful')
def no(prev='', exit=False): return gate_response(False, prev, exit, think='nothing new')

def clean_env(**extra):
    "The environment without MEMGATE_/OPENAI_ variables (a developer's own settings must not leak in), plus `extra`."
    return {**{k: v for k, v in os.environ.items() if not k.startswith(('MEMGATE_', 'OPENAI_'))}, **extra}

def cli(*args):
    "The command line running `memgate ARGS` with this interpreter, through the console command's own entry point."
    return [sys.executable, '-c', 'import sys; from memgate.entry import main; sys.exit(main())', *map(str, args)]

def memgate(*args, timeout=120, **env):
    "Run `memgate ARGS` in a new process in the clean environment plus `env`; the CompletedProcess."
    return subprocess.run(cli(*args), capture_output=True, text=True, timeout=timeout, env=clean_env(**env))
