"""A scripted OpenAI-compatible server on 127.0.0.1, for tests: no model, fully determined answers.

The gate script is a function of the prompt (so answers do not depend on timing or order), and faults are
injected per request from a queue: '500', '429' (with Retry-After), 'drop' (close the connection unanswered),
'trickle' (headers, then a byte a second),
'garbage' (a 200 whose text is not in the gate format), 'http404', 'huge' (a 200 of 5 MB), 'gzip-bomb' (200 MB in a
0.2 MB gzip body), 'context' (a 400
context_length_exceeded, as vLLM and llama-cpp-python answer a prompt too long), 'broadcast' (llama-cpp-python's
500 for a prompt that fits without its max_tokens), 'unknown-field' (a 400 for a field the server does not take),
'echo-key' (OpenAI's 401 that repeats most of the key).

It can behave as the real servers do: `slots` requests decoded at once, the rest queued (llama-cpp-python answers
one at a time, and a request it queued still runs after its client gave up); a request with `stream: true` is
answered in server-sent events, `piece` characters every `token_s` seconds, after `prompt_s` seconds (or
`prompt_s(n)` for request n) of reading
the prompt during which a hang-up is not noticed (as llama-cpp-python reads a prompt), a hang-up noticed at the next
token after that (faults 'silent': the events never come; 'ping': keep-alive comments only); `work` records when
each request held the server, and whether its client was still there at the end; a gate that returns a dict sets the
message's other fields and `finish_reason` ('length': cut at max_tokens); `owned_by`, `max_model_len` and `props`
answer `GET /v1/models` and llama.cpp's `GET /props`; `tokenize` (a text's token count) answers the servers' tokenize
endpoints.

    python tests/fake_server.py --port 8123 --latency 0.2     # stand-alone, for trying memgate by hand
"""
import argparse, gzip, json, select, socket, threading, time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from memgate.parser import gate_response
from memgate.prompt import prompt_parts
from memgate.domain import sha256_text

STATUS_FAULTS = ('500', '429', 'drop', 'trickle', 'garbage', 'http404', 'huge', 'gzip-bomb', 'context', 'broadcast',
                 'unknown-field', 'echo-key', 'hostile')     # answered as before, streamed request or not
ANSWER = 'Failures were seen in the chunks the memory names. <evidence>t=1</evidence>'

def default_gate(prompt: str) -> str:
    "yes when the chunk mentions an error; the memory gains one line naming the chunk; exit never. Answers ANSWER."
    if '\n<updates> ' in prompt: return ANSWER          # the answer step's prompt, not a turn's
    memory, section = prompt_parts(prompt)
    if 'error' not in section.lower(): return gate_response(False, memory, think='no failure here')
    prev = '' if memory == 'No previous memory' else memory + '\n'
    return gate_response(True, f"{prev}- failure seen in chunk {sha256_text(section)[:10]}",
                         think='an error is reported')

class FakeServer:
    "Start with `with FakeServer(...) as s:`; `s.url` is the base URL to give memgate."
    def __init__(self, gate=default_gate, latency: float = 0.0, faults=(), models=('test-model',), api_key=None, port=0,
                 stop_after=None, slots=None, owned_by='memgate-test', max_model_len=None, props=None,
                 prompt_s=0.0, token_s=0.0, piece=16, tokenize=None):
        self.gate, self.latency, self.faults = gate, latency, deque(faults)
        self.models, self.api_key, self.stop_after = set(models), api_key, stop_after
        self.requests, self.headers, self.lock, self.port = [], [], threading.Lock(), port
        self.arrivals = []          # time.monotonic() of each request, for the bench scripts
        self.httpd, self.connections, self.closed = None, set(), False
        self.slots = threading.Semaphore(slots) if slots else None
        self.owned_by, self.max_model_len, self.props = owned_by, max_model_len, props
        self.busy = self.most_busy = 0          # requests being decoded now, and the most at once
        self.paths = []                         # path and query string of each POST
        self.prompt_s, self.token_s, self.piece = prompt_s, token_s, piece
        self.tokenize = tokenize                # text -> its token count, for the tokenize endpoints (None: 404)
        self.work = []                          # per request: n, start, began (its first token), end, status

    @property
    def url(self): return f'http://127.0.0.1:{self.port}/v1'

    def __enter__(self): return self.start()
    def __exit__(self, *exc): self.stop()

    def start(self):
        server = self
        class Handler(BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'          # keep-alive, as model servers do: one connection, many requests
            disable_nagle_algorithm = True         # headers and body are two writes: no 40 ms delayed-ACK stall
            def log_message(self, *a): pass
            def setup(self):
                super().setup()
                with server.lock: server.connections.add(self.connection)
            def finish(self):
                with server.lock: server.connections.discard(self.connection)
                super().finish()
            def reply(self, status, body, headers=(), gzipped=False):
                data = json.dumps(body).encode()
                if gzipped:
                    data = gzip.compress(data)
                    headers = [*headers, ('Content-Encoding', 'gzip')]
                self.send_response(status)
                for k, v in headers: self.send_header(k, v)
                self.send_header('Content-Type', 'application/json')
                self.send_header('Content-Length', str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            def decoding(self, seconds) -> bool:
                "Work `seconds`, or stop early (False) when the client closed the connection, as vLLM aborts then."
                end = time.monotonic() + seconds
                while (left := end - time.monotonic()) > 0:
                    if select.select([self.connection], [], [], min(left, 0.01))[0]:
                        try: gone = self.connection.recv(1, socket.MSG_PEEK) == b''
                        except OSError: gone = True
                        if gone:
                            self.close_connection = True
                            return False
                return True
            def gone(self) -> bool:
                "Whether the client hung up (looked at without waiting)."
                return not self.decoding(0.0001)
            def chunk(self, data: bytes) -> bool:
                "One chunk of a chunked body; False when the client is gone."
                try:
                    self.wfile.write(b'%x\r\n%s\r\n' % (len(data), data))
                    self.wfile.flush()
                    return True
                except OSError:
                    self.close_connection = True
                    return False
            def stream(self, n, said, finish, fault, model):
                "The answer as server-sent events, as a streaming server sends it; True if the client stayed."
                self.send_response(200)
                self.send_header('Content-Type', 'text/event-stream')
                self.send_header('Transfer-Encoding', 'chunked')
                self.end_headers()
                self.wfile.flush()
                event = lambda obj: b'data: ' + json.dumps(obj).encode() + b'\n\n'
                choice = lambda delta, fin=None: dict(id=f'cmpl-{n}', object='chat.completion.chunk', model=model,
                                                      choices=[dict(index=0, delta=delta, finish_reason=fin)])
                if fault in ('silent', 'ping'):      # the events never come (until the client hangs up)
                    end = time.monotonic() + 120
                    while time.monotonic() < end and not self.gone():
                        if fault == 'ping' and not self.chunk(b': ping\n\n'): return False
                        time.sleep(0.2)
                    return False
                text, extra = said.pop('content', ''), said
                pieces = [text[i:i + server.piece] for i in range(0, len(text), server.piece)] or ['']
                for i, p in enumerate(pieces):
                    if self.gone(): return False      # a hang-up is noticed when the next token is due
                    if i == 0: self.began = time.monotonic()
                    if not self.chunk(event(choice(dict(content=p, **(extra if i == 0 else {}))))): return False
                    if server.token_s: time.sleep(server.token_s)
                usage = dict(prompt_tokens=1, completion_tokens=1, total_tokens=2)     # as when not streamed
                return self.chunk(event({**choice({}, finish), 'usage': usage})) and self.chunk(b'data: [DONE]\n\n') \
                    and self.chunk(b'')
            def do_GET(self):
                path = self.path.split('?')[0]
                if path == '/v1/models':
                    extra = {'max_model_len': server.max_model_len} if server.max_model_len else {}
                    data = [dict(id=m, object='model', owned_by=server.owned_by, **extra)
                            for m in sorted(server.models)]
                    return self.reply(200, dict(object='list', data=data))
                if path == '/props' and server.props: return self.reply(200, server.props)
                self.reply(404, dict(detail='Not Found'))
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers['Content-Length'])))
                if self.path.split('?')[0].endswith('tokenize'):      # llama.cpp, llama-cpp-python and vLLM
                    if server.tokenize is None: return self.reply(404, dict(detail='Not Found'))
                    text = body.get('input') or body.get('content') or body.get('prompt') or ''
                    return self.reply(200, dict(tokens=list(range(server.tokenize(text)))))
                server.paths.append(self.path)
                if server.closed:                      # stopped: hang up, as a server that went away does
                    self.close_connection = True
                    return
                with server.lock:
                    server.arrivals.append(time.monotonic())
                    server.requests.append(body)
                    server.headers.append(dict(self.headers))
                    fault = server.faults.popleft() if server.faults else None
                    n = len(server.requests)
                if server.slots: server.slots.acquire()       # queued until a slot is free, as one-worker servers do
                start, stayed, self.began = time.monotonic(), False, None
                try:
                    with server.lock:
                        server.busy += 1
                        server.most_busy = max(server.most_busy, server.busy)
                    if server.latency and not self.decoding(server.latency): return   # the client hung up
                    key_ok = not server.api_key or self.headers.get('Authorization') == f'Bearer {server.api_key}'
                    if body.get('stream') and fault not in STATUS_FAULTS and body.get('model') in server.models \
                            and key_ok:
                        time.sleep(server.prompt_s(n) if callable(server.prompt_s) else server.prompt_s)   # reading the
                        #                                       prompt: a hang-up goes unnoticed
                        said = server.gate(body['messages'][-1]['content']) if fault not in ('silent', 'ping') else ''
                        said = dict(said) if isinstance(said, dict) else dict(content=said)
                        stayed = self.stream(n, said, said.pop('finish_reason', 'stop'), fault, body['model'])
                        if server.stop_after and n >= server.stop_after:
                            server.closed = True
                            threading.Thread(target=server.stop).start()
                        return
                    stayed = True
                finally:
                    with server.lock:
                        server.busy -= 1
                        server.work.append(dict(n=n, start=start, began=self.began, end=time.monotonic(),
                                                status='answered' if stayed else 'hung up'))
                    if server.slots: server.slots.release()
                if fault == 'trickle':                 # headers, then one byte a second, for ever (until closed)
                    self.send_response(200)
                    self.send_header('Content-Length', '1000000')
                    self.end_headers()
                    try:
                        for _ in range(120):
                            self.wfile.write(b' ')
                            self.wfile.flush()
                            time.sleep(1)
                    except OSError: pass
                    return
                if fault == 'drop':
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                if fault == '500': return self.reply(500, dict(error=dict(message='upstream model crashed')))
                if fault == 'hostile':                 # an error body that would drive a terminal
                    return self.reply(500, dict(error=dict(message='overloaded \x1b[2J\x1b]52;c;aGVsbG8=\x07\x9b31m')))
                if fault == 'unknown-field':
                    return self.reply(400, dict(error=dict(message='Unrecognized request argument supplied: grammar')))
                if fault == 'broadcast':                # llama-cpp-python when prompt + max_tokens exceed n_ctx
                    return self.reply(500, dict(error=dict(message=(
                        'could not broadcast input array from shape (2048,) into shape (1901,)'))))
                if fault == 'context':
                    return self.reply(400, dict(error=dict(code='context_length_exceeded', message=(
                        "This model's maximum context length is 2048 tokens. However, you requested 7656 tokens "
                        "(5608 in the messages, 2048 in the completion)."))))
                if fault == '429': return self.reply(429, dict(error=dict(message='slow down')), [('Retry-After', '1')])
                if fault == 'http404' or body.get('model') not in server.models:
                    return self.reply(404, dict(error=dict(message=f"The model `{body.get('model')}` does not exist.")))
                if fault == 'echo-key':                  # OpenAI's 401: the key sent, all but its last two characters
                    got = (self.headers.get('Authorization') or '').removeprefix('Bearer ')
                    return self.reply(401, dict(error=dict(message=f'Incorrect API key provided: {got[:-2]}**.')))
                if server.api_key and self.headers.get('Authorization') != f'Bearer {server.api_key}':
                    got = (self.headers.get('Authorization') or '').removeprefix('Bearer ')
                    return self.reply(401, dict(error=dict(message=f'Incorrect API key provided: {got}')))
                prompt = body['messages'][-1]['content']
                said = 'I would say yes, this chunk matters.' if fault == 'garbage' else server.gate(prompt)
                if fault in ('huge', 'gzip-bomb'): said = 'x' * ((200 if fault == 'gzip-bomb' else 5) << 20)
                said = said if isinstance(said, dict) else dict(content=said)
                finish = said.pop('finish_reason', 'stop')
                self.reply(200, dict(id=f'cmpl-{n}', object='chat.completion', model=body['model'],
                                     choices=[dict(index=0, message=dict(role='assistant', **said),
                                                   finish_reason=finish)],
                                     usage=dict(prompt_tokens=1, completion_tokens=1, total_tokens=2)),
                           gzipped=fault == 'gzip-bomb')
                if server.stop_after and n >= server.stop_after:
                    server.closed = True                # no request after this one is answered
                    threading.Thread(target=server.stop).start()
        class Server(ThreadingHTTPServer):
            def handle_error(self, request,
                             client_address):     # a client that hung up (cancelled, killed) is expected here
                import sys
                if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
                    super().handle_error(request, client_address)
        self.httpd = Server(('127.0.0.1', self.port), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def stop(self):
        "Stop listening and hang up every kept-alive connection, as a server that went away does."
        self.closed = True
        with self.lock: httpd, self.httpd, connections = self.httpd, None, list(self.connections)
        if not httpd: return
        for c in connections:
            try: c.shutdown(2)
            except OSError: pass
        httpd.shutdown()
        httpd.server_close()

    def prompts(self): return [r['messages'][-1]['content'] for r in self.requests]

if __name__ == '__main__':
    ap = argparse.ArgumentParser()
    ap.add_argument('--port', type=int, default=8123)
    ap.add_argument('--latency', type=float, default=0.0)
    a = ap.parse_args()
    s = FakeServer(latency=a.latency, port=a.port).start()
    print(f'serving {s.url} (model test-model); Ctrl-C stops')
    try: threading.Event().wait()
    except KeyboardInterrupt: s.stop()
