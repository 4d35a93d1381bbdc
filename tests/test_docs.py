"The docs site without Quarto (tools/docs.py): nbdev's page names and anchors, and a check that finds what is broken."
import importlib.util
from conftest import ROOT

spec = importlib.util.spec_from_file_location('docs', ROOT / 'tools' / 'docs.py')
docs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(docs)

def test_pages_are_named_and_anchored_as_nbdev_names_them():
    assert [docs.page_name(ROOT / 'nbs' / n) for n in ('00_domain.ipynb', '07a_servers.ipynb', 'index.ipynb')] == [
        'domain', 'servers', 'index']
    assert docs.anchored('### Warnings.summary') == '<a id="warnings.summary"></a>\n\n### Warnings.summary'
    assert docs.anchored('## Speculative turns {#speculate}') == '<a id="speculate"></a>\n\n## Speculative turns'
    assert docs.anchored('## Prompt {#prompt}') == '## Prompt'                     # Sphinx's id is Pandoc's here
    assert docs.anchored('## Records and chunks') == '## Records and chunks'          # Sphinx names it the same
    site = 'https://memgate.github.io/memgate/'
    got = docs.markdown(f'[`Record`]({site}domain.html#record){{target="_blank"}}', site)
    assert got == '[`Record`](domain.html#record)'

def test_a_processed_notebook_becomes_a_page_with_its_title_and_without_hidden_code():
    head = "---\ndescription: 'Roles and records.'\ntitle: domain\n---\n"
    nb = dict(cells=[dict(cell_type='raw', metadata={}, source=head),
                     dict(cell_type='code', metadata={}, outputs=[],
                          source='#| echo: false\n#| output: asis\nshow_doc(f)'),
                     dict(cell_type='code', metadata={}, outputs=[], source='#| hide\n')], metadata={})
    got = docs.page(nb, '')
    assert got['cells'][0]['source'] == '# domain\n\n> Roles and records.\n'
    assert got['cells'][1]['source'] == 'show_doc(f)' and got['cells'][1]['metadata'] == {'tags': ['remove-input']}
    assert len(got['cells']) == 2

def test_the_check_finds_broken_links_missing_anchors_and_remote_assets(tmp_path):
    (tmp_path / 'index.html').write_text('<a id="top"></a><a href="domain.html#record">x</a><a href="gone.html">y</a>'
                                         '<a href="index.html#nowhere">z</a><a href="https://example.org/">ok</a>'
                                         '<script src="https://cdn.example.org/mathjax.js"></script>')
    (tmp_path / 'domain.html').write_text('<h3 id="record">Record</h3><link href="http://fonts.example.org/f.css">')
    (tmp_path / 'site.css').write_text('body { background: url("https://example.org/bg.png") }')
    assert sorted(docs.check(tmp_path)) == [
        'domain.html: loads <link> http://fonts.example.org/f.css',
        'index.html: gone.html: no such page',
        'index.html: index.html#nowhere: no anchor #nowhere',
        'index.html: loads <script> https://cdn.example.org/mathjax.js',
        'site.css: loads https://example.org/bg.png']

def test_the_built_site_if_any_is_whole():
    "After `make docs`: one page per notebook, each module's docstring link a page, no broken link, nothing remote."
    out = ROOT / '_docs'
    if not (out / 'index.html').exists(): return            # .ci/run builds it before the tests
    names = {docs.page_name(p) for p in (ROOT / 'nbs').glob('*.ipynb')}
    assert {p.stem for p in out.glob('*.html')} >= names and docs.check(out) == []
    for m in (ROOT / 'memgate').glob('*.py'):
        text = m.read_text()
        if 'Docs: ' in text: assert (out / text.split('Docs: ')[1].split('"""')[0].rsplit('/', 1)[1]).exists(), m
