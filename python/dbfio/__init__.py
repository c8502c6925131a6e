"""dbfio - the Python the project's tests and tools share.

    dbfio.fiojson   fio's --output-format=json output, with whatever text fio
                    and the engines wrote ahead of the document
    dbfio.strace    one grammar for `strace -f [-ff] [-y] [-t|-tt|-ttt] [-T]`
                    output: calls (split ones joined), signals, exits
    dbfio.host      how busy the host is now: a wake-up round trip between
                    two processes, how its idle vCPUs wait (guest_halt_poll_ns),
                    the CPU reference figure profiles record
    dbfio.labtool   a lab/ tool loaded as a module, for tests of its functions
    dbfio.pages     a results page written whole, the repository's paths relative
    dbfio.servers   throwaway PostgreSQL 15 and MariaDB 10.11 servers in a
                    scratch directory: set up, start, SQL, stop (lab/dbtrace,
                    txncalib, ddlcalib, commitgap)
    dbfio.termination  SIGTERM/SIGHUP raise SystemExit, so a killed lab
                    tool's `finally` blocks undo what it started

Scripts import it by module: they put <repo>/python on sys.path (computed
from their own location) or run with PYTHONPATH set (tests/lib.sh does).
The unit tests are python/tests/test_*.py (pytest).
"""
