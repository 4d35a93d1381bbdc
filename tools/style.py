"""The notebooks' shape, measured as issue 29 measured it against claudette, nbdev and fastcore: how many exported
cells hold more than one definition, examples and prose per exported cell, lines per exported cell, and the share of
notebook code lines over 100 characters; and `show_doc` outputs that document another object than they name.

    python tools/style.py            # the module notebooks (00-18), all told (--each: one by one)
    python tools/style.py --since C  # and the code lines new since commit C, and how many are wide
"""
import ast, io, json, re, statistics, subprocess, sys, tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WIDE = 100
MODULE_NBS = '[01][0-9]*.ipynb'

def cells(nb: Path) -> list[dict]: return json.loads(nb.read_text(encoding='utf-8'))['cells']

def exported(src: str) -> bool: return re.match(r'#\|\s*export', src) is not None

def definitions(src: str) -> int:
    "Top-level functions and classes of a cell's code (its `#|` lines and magics left out)."
    code = '\n'.join(l for l in src.splitlines() if not l.startswith(('#|', '%', '!')))
    try: tree = compile(code, '<cell>', 'exec', ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    except SyntaxError: return 0
    return sum(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) for n in tree.body)

def shape(nbs) -> dict:
    "The measures over notebooks `nbs`."
    n = dict(exported=0, multi=0, examples=0, markdown=0, exported_lines=0, lines=0, wide=0)
    for nb in nbs:
        for c in cells(nb):
            src = ''.join(c['source'])
            if c['cell_type'] == 'markdown':
                n['markdown'] += 1
                continue
            if c['cell_type'] != 'code' or not src.strip(): continue
            code = [l for l in src.splitlines() if not l.startswith('#|')]
            n['lines'] += len(code)
            n['wide'] += sum(len(l) > WIDE for l in code)
            if exported(src):
                n['exported'] += 1
                n['multi'] += definitions(src) > 1
                n['exported_lines'] += len(code)
            else: n['examples'] += 1
    e = max(n['exported'], 1)
    return dict(n, multi_share=n['multi'] / e, examples_per=n['examples'] / e, markdown_per=n['markdown'] / e,
                lines_per=n['exported_lines'] / e, wide_share=n['wide'] / max(n['lines'], 1))

def python_lines(src: str) -> str:
    "A cell's source as Python: its magics and shell lines blank (line numbers kept)."
    return '\n'.join('' if l.lstrip().startswith(('%', '!')) else l for l in src.splitlines())

def code_cells(nbs):
    "(notebook, cell, source) of every code cell of `nbs`."
    return ((nb, c, ''.join(c['source'])) for nb in nbs for c in cells(nb) if c['cell_type'] == 'code')

def show_doc_mismatches(nbs) -> list[str]:
    "`show_doc(X)` cells whose stored output documents something else than `X`."
    out = []
    for nb, c, src in code_cells(nbs):
        m = re.fullmatch(r'show_doc\(([\w.]+)\)', src.strip())
        if not m or not c.get('outputs'): continue
        name = m[1].rsplit('.', 1)[-1]
        shown = ''.join(''.join(o.get('data', {}).get('text/markdown', '')) for o in c['outputs'])
        heading = re.search(r'^#+\s*(\S+)', shown, re.M)
        if heading and name not in heading[1].replace('\\_', '_'): out.append(f"{nb.name}: show_doc({m[1]}) "
                                                                             f"shows {heading[1]}")
    return out

def empty_outputs(nbs) -> list[str]:
    "Cells whose stored result is empty: the value could not be shown (a repr that raised, say)."
    return [f"{nb.name}: cell {c.get('id')}" for nb, c, _ in code_cells(nbs)
            for o in c.get('outputs', []) if o['output_type'] == 'execute_result' and not o.get('data')]

def mixed_imports(nbs) -> list[str]:
    "Cells nbdev's docs processing warns of (\"Found cells containing imports and other code\"): it runs them."
    out = []
    for nb, c, src in code_cells(nbs):
        if 'nbdev_export' + '()' in src: continue
        if re.search(r'^#\|\s*(?:export|exports|exporti|exec_doc)\b|^#\|\s*eval:\s*false', src, re.M): continue
        try: top = ast.parse(python_lines(src)).body
        except SyntaxError: continue
        if (any(isinstance(n, (ast.Import, ast.ImportFrom)) for n in top)
                and any(isinstance(n, (ast.Expr, ast.Assign)) for n in top)):
            out.append(f"{nb.name}: cell {c.get('id')} mixes imports and other code")
    return out

def _tails(code: str, width: int) -> list[int]:
    "Lines of `code` that break inside a bracket opened on the line before, leaving one token to close it."
    try: toks = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError): return []
    lines, opened, out = code.splitlines(), [], []
    for i, t in enumerate(toks):
        if t.type == tokenize.OP and t.string in '([{': opened.append(t.start[0])
        elif t.type == tokenize.OP and t.string in ')]}' and opened: opened.pop()
        elif t.type == tokenize.NL and opened and opened[-1] == t.start[0] and toks[i - 1].type != tokenize.COMMENT:
            rest = [s for s in toks[i + 1:i + 4] if s.type not in (tokenize.NL, tokenize.COMMENT)]
            nxt = lines[t.start[0]].strip() if t.start[0] < len(lines) else ''
            # one token, then the bracket closes; not a string continued by another; joined, it fits
            tail = len(rest) > 1 and rest[1].type == tokenize.OP and rest[1].string in ')]}'
            # (comments on the lines after leave no token within reach: no tail)
            concat = toks[i - 1].type == tokenize.STRING and bool(rest) and rest[0].type == tokenize.STRING
            if tail and not concat and not nxt.startswith('#') and len(lines[t.start[0] - 1].rstrip()) + 1 + \
                    len(nxt) <= width: out.append(t.start[0] + 1)
    return out

def stranded_tails(nbs, width: int = 110) -> list[str]:
    "Code lines that hold one token and a closing bracket, where the line before had room for them (issue 41)."
    out = []
    for nb, c, src in code_cells(nbs):
        code = python_lines(src)
        lines = code.splitlines()
        out += [f"{nb.name}: cell {c.get('id')} line {n}: {lines[n - 1].strip()}" for n in _tails(code, width)]
    return out

def long_cells(nbs, most: int = 40) -> list[str]:
    "Exported cells of more than `most` code lines: a definition that long is split, or its branches given names."
    out = []
    for nb, c, src in code_cells(nbs):
        if not exported(src): continue
        n = len([l for l in src.splitlines() if not l.startswith('#|')])
        if n > most: out.append(f"{nb.name}: cell {c.get('id')} has {n} lines")
    return out

def issue_history(nbs) -> list[str]:
    "Prose that cites an issue: a notebook says why a thing is so; CHANGELOG.md says when it became so."
    return [f"{nb.name}: cell {c.get('id')}: {m[0]}" for nb in nbs for c in cells(nb) if c['cell_type'] == 'markdown'
            for m in re.finditer(r'\bissues? \d+', ''.join(c['source']))]

def docstrings(root: Path = ROOT) -> list[int]:
    "The length of each docstring of the package's functions, classes and methods."
    out = []
    for f in sorted((root / 'memgate').glob('*.py')):
        for n in ast.walk(ast.parse(f.read_text(encoding='utf-8'))):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and ast.get_docstring(n):
                out.append(len(ast.get_docstring(n, clean=False)))
    return out

def code_lines(text: str) -> list[str]:
    "The non-blank lines of a module's code, without nbdev's own: the module docstring and `__all__`."
    body = ast.parse(text).body
    own = {n for i, node in enumerate(body)
           if i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
           or isinstance(node, ast.Assign) and getattr(node.targets[0], 'id', '') == '__all__'
           for n in range(node.lineno, node.end_lineno + 1)}
    return [l.rstrip() for i, l in enumerate(text.splitlines(), 1) if l.strip() and i not in own]

def new_lines(base: str, root: Path = ROOT) -> list[str] | None:
    "Code lines of the package not found anywhere in it at commit `base` (moved code is not new); None: no git."
    def lines(listing, read):
        return [l for name in listing if name.endswith('.py') and not name.endswith('_modidx.py')
                for l in code_lines(read(name))]
    git = lambda *a: subprocess.run(['git', '-C', str(root), *a], capture_output=True, text=True)
    listed = git('ls-tree', '--name-only', base, 'memgate/')
    if listed.returncode: return None
    before = set(l.strip() for l in lines(listed.stdout.split(), lambda n: git('show', f'{base}:{n}').stdout))
    now = lines([str(f.relative_to(root)) for f in sorted((root / 'memgate').glob('*.py'))],
                lambda n: (root / n).read_text(encoding='utf-8'))
    return [l for l in now if l.strip() not in before]

def all_nbs(root: Path = ROOT) -> list[Path]: return sorted((root / 'nbs').glob('*.ipynb'))

def module_nbs(root: Path = ROOT) -> list[Path]: return sorted((root / 'nbs').glob(MODULE_NBS))

def analysis_nbs(root: Path = ROOT) -> list[Path]: return sorted((root / 'nbs').glob('2[0-9]_*.ipynb'))

def line(name: str, s: dict) -> str:
    "One row of the table."
    return (f"{name:28s} {s['exported']:4d} exported  multi-def {s['multi_share']:4.0%}  "
            f"examples/exported {s['examples_per']:4.2f}  markdown/exported {s['markdown_per']:4.2f}  "
            f"lines/exported {s['lines_per']:5.1f}  over {WIDE} chars {s['wide_share']:4.0%}")

if __name__ == '__main__':
    nbs = module_nbs()
    print(line('all module notebooks', shape(nbs)))
    docs, new = docstrings(), new_lines(sys.argv[sys.argv.index('--since') + 1] if '--since' in sys.argv else 'HEAD')
    print(f"{len(docs)} docstrings, median {statistics.median(docs):.0f} characters, {sum(d > 70 for d in docs)} "
          f"over 70" + (f"; {len(new)} new code lines, {sum(len(l) > WIDE for l in new)} over {WIDE}" if new else ''))
    if '--each' in sys.argv:
        for nb in nbs: print(line(nb.name, shape([nb])))
    found = (show_doc_mismatches(nbs) + empty_outputs(nbs) + mixed_imports(all_nbs()) + stranded_tails(nbs)
             + long_cells(nbs) + issue_history(nbs))
    for m in found: print(m)
