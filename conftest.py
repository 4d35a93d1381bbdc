"""pytest set-up for the whole repository.

nbval checks the analysis notebooks' stored outputs, but it refuses a code cell that has outputs and no
execution count ("unrun reference cell has outputs"), and `nbdev-clean` nulls every execution count
while keeping outputs. So, before nbval reads a notebook's cells, number them here: the notebooks on
disk stay clean, nbval sees run cells and compares their outputs.

memgate's cache folder is a fresh one of the tests' own: no test reads or writes the user's.
"""
import os, tempfile

# memgate's cache (the index of found values) of the tests' own, never the user's
os.environ['XDG_CACHE_HOME'] = tempfile.mkdtemp(prefix='memgate-tests-cache-')

try: from nbval.plugin import IPyNbFile
except ImportError: IPyNbFile = None

if IPyNbFile is not None and not getattr(IPyNbFile, '_memgate_numbered', False):
    _collect = IPyNbFile.collect
    def collect(self):
        items = list(_collect(self))          # reads self.nb; items keep references to its cells
        n = 0
        for cell in self.nb.cells:
            if cell.cell_type == 'code':
                n += 1
                if cell.get('execution_count') is None and cell.get('outputs'): cell.execution_count = n
        return items
    IPyNbFile.collect = collect
    IPyNbFile._memgate_numbered = True
