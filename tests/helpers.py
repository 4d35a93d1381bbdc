"Builders and command runners shared by the tests."
import json, os, re, subprocess, sys
from pathlib import Path
from memgate.parser import gate_response
from memgate.domain import Chunk, Record, Role
from memgate.queries import Query

ROOT = Path(__file__).resolve().parent.parent
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

README = ROOT / 'README.md'
# the docs' pages of topics, in the order the site lists them (38a_ after 38_): their examples run after the README's
PAGES = sorted(p for p in (ROOT / 'nbs').glob('3*.ipynb') if re.match(r'3\d[a-z]?_', p.name))

def page_text(path: Path) -> str:
    "The markdown a reader reads: the README, or a docs page's markdown cells."
    if path.suffix == '.md': return path.read_text(encoding='utf-8')
    cells = json.loads(path.read_text(encoding='utf-8'))['cells']
    return '\n\n'.join(''.join(c['source']) for c in cells if c['cell_type'] == 'markdown') + '\n'

def docs_text() -> str:
    "The README and every docs page, as one text (what the docs say, wherever it is said)."
    return '\n'.join(page_text(p) for p in [README, *PAGES])
