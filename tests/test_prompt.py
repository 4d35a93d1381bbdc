"Prompt contract a1-a7 (nbs/contracts.ipynb): the prompt is GRU-Mem's Figure 10a, byte for byte, within budget."
import pytest
from golden import CHUNK, MEMORY, QUESTION, EXPECTED, prompt_t1, prompt_tn
from memgate.domain import Role
from memgate.chunking import chunk_project
from memgate.domain import count_tokens
from memgate.prompt import BudgetError, NO_PREVIOUS_MEMORY, build_prompt, load_template
from memgate.domain import templates_dir
from memgate.queries import load_queries
from memgate.projects import load_project

def fill(tpl, prompt, memory, chunk):
    "An independent rendering: split the template at its three placeholders and join the parts."
    head, rest = tpl.split('{prompt}')
    mid, tail = rest.split('{memory}')
    mid2, end = tail.split('{chunk}')
    return head + prompt + mid + memory + mid2 + chunk + end

def test_a1_golden_t1():
    assert prompt_t1().encode() == (EXPECTED / 'prompt-t1.txt').read_bytes()
    assert prompt_t1() == fill(load_template(), QUESTION, 'No previous memory', CHUNK.text)

def test_a2_golden_tn():
    assert prompt_tn().encode() == (EXPECTED / 'prompt-tn.txt').read_bytes()
    assert prompt_tn() == fill(load_template(), QUESTION, MEMORY, CHUNK.text)

def test_template_is_figure_10a_of_the_paper(fixtures):
    template = (templates_dir() / "gru-mem.txt").read_bytes()
    assert template.startswith(b'You are presented with a problem, a section of an article that may contain the\n'
                               b'answer to the problem')
    instruction = b'first generate <check>yes</check>. After that, update the new memory between\n<update> and'
    assert instruction in template
    assert template.endswith(b'<problem> {prompt} </problem>\n<memory> {memory} </memory>\n'
                             b'<section> {chunk} </section>\n')
    assert len(template) == 1351 and template.count(b'\n') == 22

def test_a3_no_previous_memory_literal():
    assert NO_PREVIOUS_MEMORY == 'No previous memory'
    assert '<memory> No previous memory </memory>' in prompt_t1()
    assert 'No previous memory' not in prompt_tn()

@pytest.mark.parametrize('text', [prompt_t1(), prompt_tn()])
def test_a4_all_tags_present(text):
    for tag in ('<problem>', '</problem>', '<memory>', '</memory>', '<section>', '</section>'):
        assert text.count(tag) == 1, tag

def test_a5_role_labels_rendered():
    labels = [line.split(']')[0] + ']' for line in CHUNK.text.split('\n\n')]
    assert labels == ['[System]', '[User]', '[Assistant]', '[ToolResult]', '[Assistant]']
    assert {r.role for r in CHUNK.records} == set(Role)

def test_a6_over_budget_errors():
    chunk = 'token ' * 20000
    with pytest.raises(BudgetError) as e: build_prompt(QUESTION, None, chunk)
    assert 'section' in str(e.value) and e.value.component == 'section' and e.value.tokens >= 20000
    with pytest.raises(BudgetError, match='memory'): build_prompt(QUESTION, 'm ' * 2000, CHUNK.text)
    with pytest.raises(BudgetError, match='problem'): build_prompt('why ' * 1000, None, CHUNK.text)

def test_memory_quoting_a_placeholder_is_not_substituted():
    text = build_prompt('Q', 'see {chunk} and {prompt}', 'CHUNK').text
    assert '<memory> see {chunk} and {prompt} </memory>' in text and text.count('CHUNK') == 1

def test_a7_budget_headroom_on_the_real_corpus(fixtures):
    "Prompt a7: with a full 1024-token memory, every real chunk's prompt leaves the 2048-token reserve."
    full_memory = ' '.join(['failure'] * 1024)
    assert count_tokens(full_memory) == 1024
    worst = 0
    for q in load_queries(templates_dir() / 'queries.toml').values():
        for c in chunk_project(load_project(fixtures / 'transcripts')):
            p = build_prompt(q.question, full_memory, c.text)
            worst = max(worst, p.tokens)
    assert worst <= 32768 - 2048 and worst > 5000    # the largest chunk was really in there
