"Parser contract a1-a9 (nbs/contracts.ipynb; GRU-Mem r_format): strict parsing that never invents a gate."
import json, re
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck
from memgate.parser import GateResponse, ParseError, parse_gate_response

VALID = """<think>
This chunk shows a kubectl error. The user fixed it by adding --namespace.
</think>
<check>yes</check>
<update>kubectl get pods fails without --namespace; fixed by adding --namespace=kube-system</update>
<next>continue</next>"""

def expect_error(text, tag):
    with pytest.raises(ParseError) as e: parse_gate_response(text)
    assert e.value.tag == tag and e.value.raw == text
    return e.value

def test_a1_wellformed_yes_continue():
    assert parse_gate_response(VALID) == GateResponse(
        think='This chunk shows a kubectl error. The user fixed it by adding --namespace.', update_gate=True,
        candidate='kubectl get pods fails without --namespace; fixed by adding --namespace=kube-system',
                                                      exit_gate=False)

def test_a2_wellformed_no_end():
    r = parse_gate_response('<think>nothing here</think>\n<check>no</check>\n<update>old memory</update>\n'
                            '<next>end</next>')
    assert (r.update_gate, r.exit_gate, r.candidate) == (False, True, 'old memory')

def test_a3_missing_check_errors():
    e = expect_error('<think>x</think>\n<update>m</update>\n<next>end</next>', 'check')
    assert '<check> is missing' in str(e)

def test_a4_duplicate_update_errors():
    expect_error('<check>yes</check><update>a</update>\n<update>b</update><next>continue</next>', 'update')

def test_a5_bad_check_value_errors():
    e = expect_error('<check>maybe</check><update>m</update><next>end</next>', 'check')
    assert "'maybe'" in str(e)
    for v in ('Yes', 'NO', '', 'yes.', 'y'):
        expect_error(f'<check>{v}</check><update>m</update><next>end</next>', 'check')
    for v in ('End', 'stop', '', 'continue!'):
        expect_error(f'<check>no</check><update>m</update><next>{v}</next>', 'next')

def test_a6_unclosed_tag_errors():
    expect_error('<check>yes</check><update>memory that never ends\n<next>continue</next>', 'update')
    expect_error('<check>yes</check><update>m</update><next>continue', 'next')

def test_a7_nested_think():
    text = ('<think>outer <think>inner</think> more</think>\n'
            '<check>no</check>\n<update>m</update>\n<next>continue</next>')
    assert parse_gate_response(text).think == 'outer <think>inner</think> more'
    no_think = '<check>yes</check><update>m</update><next>end</next>'
    assert parse_gate_response(no_think) == GateResponse('', True, 'm', True)

def test_candidate_verbatim_apart_from_surrounding_whitespace():
    cand = '## Failures\n\n- `pnpm dev`  →  EADDRINUSE\n\t* fixed by\u00a0killing pid'
    r = parse_gate_response(f'<check>yes</check>\n<update>\n\n  {cand}  \n</update>\n<next>continue</next>')
    assert r.candidate == cand

# a8: the property. An independent reading of the format decides what a response must parse to;
# the parser must agree exactly, for thousands of mutations of valid responses.
TAGS = ('check', 'update', 'next')

def oracle(text):
    "What `text` must parse to, or None when it must be rejected, computed with regexes."
    first = text.find('<check>')
    if first < 0: return None
    end = text.rfind('</think>', 0, first)
    if end < 0 and '<think>' in text[:first]: return None
    body = text[end + len('</think>'):] if end >= 0 else text
    spans = {}
    for tag in TAGS:
        found = list(re.finditer(f'<{tag}>(.*?)</{tag}>', body, re.S))
        if body.count(f'<{tag}>') != 1 or body.count(f'</{tag}>') != 1 or len(found) != 1: return None
        spans[tag] = found[0]
    if not (spans['check'].end() <= spans['update'].start() and spans['update'].end() <= spans['next'].start()):
        return None
    check, nxt = spans['check'][1].strip(), spans['next'][1].strip()
    if check not in ('yes', 'no') or nxt not in ('continue', 'end'): return None
    return (check == 'yes', spans['update'][1].strip(), nxt == 'end')

words = st.lists(st.sampled_from(list('abc xyz\n\t-*`<>/') + ['yes', 'no', 'end', '<think>', '</think>']),
                 max_size=20).map(''.join)

@st.composite
def valid_response(draw):
    think = draw(words)
    pad = lambda: draw(st.sampled_from(['', ' ', '\n', '  \n ']))
    u, e = draw(st.booleans()), draw(st.booleans())
    cand = draw(words).replace('<', '(').replace('>', ')')
    head = draw(st.sampled_from(['', 'Sure.\n', '```\n']))
    think_part = draw(st.sampled_from([f'<think>{think}</think>\n', '', f'{think}</think>',
                                       f'<think>a<think>{think}</think>b</think>']))
    tail = draw(st.sampled_from(['', '\n```', ' thanks']))
    return (f"{head}{think_part.replace('<check>', '')}<check>{pad()}{'yes' if u else 'no'}{pad()}</check>\n"
            f"<update>{pad()}{cand}{pad()}</update>\n<next>{pad()}{'end' if e else 'continue'}{pad()}</next>{tail}")

TOKENS = [f'<{t}>' for t in TAGS + ('think',)] + [f'</{t}>' for t in TAGS + ('think',)]

@st.composite
def mutated(draw):
    text = draw(valid_response())
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(['delete', 'duplicate', 'swap', 'truncate', 'case', 'insert', 'value']))
        present = [t for t in TOKENS if t in text]
        if op == 'delete' and present:
            tok = draw(st.sampled_from(present))
            text = text.replace(tok, '', 1)
        elif op == 'duplicate':
            tag = draw(st.sampled_from(TAGS))
            m = re.search(f'<{tag}>.*?</{tag}>', text, re.S)
            if m: text = text[:m.end()] + draw(st.sampled_from(['', '\n'])) + m.group(0) + text[m.end():]
        elif op == 'swap' and len(present) >= 2:
            a, b = draw(st.lists(st.sampled_from(present), min_size=2, max_size=2, unique=True))
            text = text.replace(a, '\0').replace(b, a).replace('\0', b)
        elif op == 'truncate':
            text = text[:draw(st.integers(0, len(text)))]
        elif op == 'case' and present:
            tok = draw(st.sampled_from(present))
            text = text.replace(tok, tok.upper(), 1)
        elif op == 'insert':
            i = draw(st.integers(0, len(text)))
            text = text[:i] + draw(st.sampled_from(TOKENS + ['yes', 'no', ' '])) + text[i:]
        elif op == 'value':
            value = lambda m: f"<{m[1]}>{draw(st.sampled_from(['yes', 'no', 'end', 'continue', 'Yes', 'maybe', '']))}</"
            text = re.sub(r'<(check|next)>\s*\w*\s*</', value, text, count=1)
    return text

@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_a8_no_defaults(text):
    want = oracle(text)
    try: got = parse_gate_response(text)
    except ParseError as e:
        assert want is None, f"rejected a valid response: {e}"
        assert e.tag in TAGS + ('think',) and e.raw == text
        return
    assert want is not None, f"accepted a malformed response as {got}"
    assert (got.update_gate, got.candidate, got.exit_gate) == want

@settings(max_examples=500, deadline=None)
@given(valid_response())
def test_valid_responses_parse_exactly(text):
    assert oracle(text) is not None
    r = parse_gate_response(text)
    assert (r.update_gate, r.candidate, r.exit_gate) == oracle(text)

def real_responses(fixtures_dir):
    for f in sorted((fixtures_dir / 'responses').glob('*.jsonl')):
        for i, line in enumerate(f.read_text().splitlines(), 1):
            yield f'{f.name}:{i}', json.loads(line)

def test_a9_real_responses(fixtures):
    parsed = rejected = 0
    for where, r in real_responses(fixtures):
        text, constrained, finished = r['response'], r['grammar_constrained'], r['finish_reason'] == 'stop'
        if constrained and finished:
            g = parse_gate_response(text)
            parsed += 1
            assert g.candidate == re.search(r'<update>(.*?)</update>', text, re.S)[1].strip(), where
            assert g.update_gate == ('<check>yes</check>' in text), where
        else:
            with pytest.raises(ParseError) as e: parse_gate_response(text)
            rejected += 1
            if not constrained: assert e.value.tag == 'check', where  # no gate of its own (some echo the prompt's)
    assert (parsed, rejected) == (38, 42)  # counted from the files: constrained and finish_reason "stop"

from hypothesis import given, settings, strategies as st
from memgate.parser import TAGS as GATE_TAGS, _regex, _text, gate_format, gate_response
TAG_STRINGS = [f"<{s}{t}>" for t in GATE_TAGS for s in ('', '/')]

@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet='<>/checkupdatenxi\n ', max_size=40))
def test_the_grammars_free_text_is_exactly_text_without_a_gate_tag(s):
    "The rule constrained decoding uses for think and memory: any text, `<` included, but never one of the tags."
    import re
    assert bool(re.fullmatch(_regex(_text()), s)) == (not any(t in s for t in TAG_STRINGS))

@settings(max_examples=300, deadline=None)
@given(st.text(alphabet='<>/checkupdatenxi\n ', max_size=30), st.text(alphabet='<>/checkupdatenxi\n ', max_size=30),
       st.booleans(), st.booleans())
def test_every_answer_the_grammar_allows_parses(think, memory, update, exit):
    import re
    raw = gate_response(update, memory, exit, think=think)
    if re.fullmatch(gate_format('regex'), raw):
        g = parse_gate_response(raw)
        assert (g.update_gate, g.exit_gate, g.candidate) == (update, exit, memory.strip())
