"""The notebooks' shape, measured as issue 29 measured it against claudette, nbdev and fastcore: how many exported
cells hold more than one definition, examples and prose per exported cell, lines per exported cell, and the share of
notebook code lines over 100 characters; and `show_doc` outputs that document another object than they name.

    python tools/style.py            # the module notebooks (00-18), all told and one by one
"""
import ast, json, re, sys
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

def show_doc_mismatches(nbs) -> list[str]:
    "`show_doc(X)` cells whose stored output documents something else than `X`."
    out = []
    for nb in nbs:
        for c in cells(nb):
            src = ''.join(c['source'])
            m = re.fullmatch(r'show_doc\(([\w.]+)\)', src.strip()) if c['cell_type'] == 'code' else None
            if not m or not c.get('outputs'): continue
            name = m[1].rsplit('.', 1)[-1]
            shown = ''.join(''.join(o.get('data', {}).get('text/markdown', '')) for o in c['outputs'])
            heading = re.search(r'^#+\s*(\S+)', shown, re.M)
            if heading and name not in heading[1].replace('\\_', '_'): out.append(f"{nb.name}: show_doc({m[1]}) "
                                                                                 f"shows {heading[1]}")
    return out

def empty_outputs(nbs) -> list[str]:
    "Cells whose stored result is empty: the value could not be shown (a repr that raised, say)."
    return [f"{nb.name}: cell {c.get('id')}" for nb in nbs for c in cells(nb) if c['cell_type'] == 'code'
            for o in c.get('outputs', []) if o['output_type'] == 'execute_result' and not o.get('data')]

def mixed_imports(nbs) -> list[str]:
    "Cells nbdev's docs processing warns of (\"Found cells containing imports and other code\"): it runs them."
    out = []
    for nb in nbs:
        for c in cells(nb):
            src = ''.join(c['source'])
            if c['cell_type'] != 'code' or 'nbdev_export' + '()' in src: continue
            if re.search(r'^#\|\s*(?:export|exports|exporti|exec_doc)\b|^#\|\s*eval:\s*false', src, re.M): continue
            code = '\n'.join(l for l in src.splitlines() if not l.lstrip().startswith(('%', '!')))
            try: top = ast.parse(code).body
            except SyntaxError: continue
            if (any(isinstance(n, (ast.Import, ast.ImportFrom)) for n in top)
                    and any(isinstance(n, (ast.Expr, ast.Assign)) for n in top)):
                out.append(f"{nb.name}: cell {c.get('id')} mixes imports and other code")
    return out

def all_nbs(root: Path = ROOT) -> list[Path]: return sorted((root / 'nbs').glob('*.ipynb'))

def module_nbs(root: Path = ROOT) -> list[Path]: return sorted((root / 'nbs').glob(MODULE_NBS))

def line(name: str, s: dict) -> str:
    "One row of the table."
    return (f"{name:28s} {s['exported']:4d} exported  multi-def {s['multi_share']:4.0%}  "
            f"examples/exported {s['examples_per']:4.2f}  markdown/exported {s['markdown_per']:4.2f}  "
            f"lines/exported {s['lines_per']:5.1f}  over {WIDE} chars {s['wide_share']:4.0%}")

if __name__ == '__main__':
    nbs = module_nbs()
    print(line('all module notebooks', shape(nbs)))
    if '--each' in sys.argv:
        for nb in nbs: print(line(nb.name, shape([nb])))
    for m in show_doc_mismatches(nbs) + empty_outputs(nbs) + mixed_imports(all_nbs()): print(m)
