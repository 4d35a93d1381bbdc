"Builders shared by the loop, log and ingest tests."
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
