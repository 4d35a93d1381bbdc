"The inputs of the prompt golden files; `python tests/golden.py` rewrites them (review the diff: the contract changed)."
from pathlib import Path
from memgate.domain import Chunk, Record, Role
from memgate.prompt import build_prompt
from memgate.answer import answer_prompt
from memgate.log import Stats
from memgate.show import Learned, Update
from memgate.domain import sha256_text

EXPECTED = Path(__file__).resolve().parent.parent / 'fixtures' / 'expected'
QUESTION = ("Which infrastructure failures happened (servers, networks, containers, CI, dependencies, permissions, "
            "disk, configuration), and for each one what was the root cause and how was it fixed?")
CHUNK = Chunk.from_records(1, [
    Record(Role.system, '<command-name>/init</command-name>', 's.jsonl', 'line 1'),
    Record(Role.user, 'The dev server will not start, can you look?', 's.jsonl', 'line 2'),
    Record(Role.assistant, 'Tool: Bash {"command": "pnpm dev"}', 's.jsonl', 'line 3', call_id='toolu_1'),
    Record(Role.tool_result,
           'Error: listen EADDRINUSE: address already in use :::3000\n    at Server.setupListenHandle', 's.jsonl',
           'line 4', call_id='toolu_1'),
    Record(Role.assistant, 'Port 3000 is held by a stale process; I will stop it and restart.', 's.jsonl', 'line 5'),
])
MEMORY = ("- dev server failed with EADDRINUSE on :3000; root cause: a stale `pnpm dev` from an earlier session;\n"
          "  fix: killed the process (`lsof -ti :3000 | xargs kill`) and restarted.")

def prompt_t1(): return build_prompt(QUESTION, None, CHUNK.text).text
def prompt_tn(): return build_prompt(QUESTION, MEMORY, CHUNK.text).text

def answer_text():
    "The answer prompt for a log whose one update wrote MEMORY at t=4 from CHUNK."
    update = Update(4, sha256_text(MEMORY), 60, MEMORY, 'EADDRINUSE is an infrastructure failure', CHUNK.sha, [],
                    CHUNK.text)
    x = Learned('runs/p/infra.jsonl', 'p', 'infra-root-causes', QUESTION, 'm', False, MEMORY, sha256_text(MEMORY),
                Stats(), None, [update])
    return answer_prompt(x).text

if __name__ == '__main__':
    EXPECTED.mkdir(parents=True, exist_ok=True)
    for name, text in (('prompt-t1.txt', prompt_t1()), ('prompt-tn.txt', prompt_tn()), ('answer.txt', answer_text())):
        (EXPECTED / name).write_bytes(text.encode('utf-8'))
        print('wrote', EXPECTED / name)
