"""dbfio - the Python the project's tests and tools share.

    dbfio.fiojson   fio's --output-format=json output, with whatever text fio
                    and the engines wrote ahead of the document
    dbfio.strace    one grammar for `strace -f [-ff] [-y] [-t|-tt|-ttt] [-T]`
                    output: calls (split ones joined), signals, exits

Scripts import it by module: they put <repo>/python on sys.path (computed
from their own location) or run with PYTHONPATH set (tests/lib.sh does).
The unit tests are python/tests/test_*.py (pytest).
"""
