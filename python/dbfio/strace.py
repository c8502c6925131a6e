"""One grammar for strace's output: `strace -f [-ff] [-y] [-t|-tt|-ttt] [-T]`.

A line is, in order: the pid ("1234 " with -f -o FILE, "[pid 1234] " on the
terminal; none with -ff, whose file name ends in it), a timestamp (-t
HH:MM:SS, -tt HH:MM:SS.micro, -ttt seconds.micro), then one of

    call(args) = ret [ERRNO (message)] [(note)] [<duration>]      a call
    call(args <unfinished ...>                                     its first half,
    <... call resumed>rest) = ret ...                              its second
    --- SIGCHLD {si_signo=SIGCHLD, ...} ---                        a signal
    +++ exited with 0 +++  /  +++ killed by SIGKILL +++            an exit

With -f a call another thread interrupts is split in two halves, each on its
own line with the pid in front; parse() joins them into one Call, placed
where its first half was (the order in which the calls began). A call whose
second half never came (its thread died in it) is kept with finished=False.
A second half without a first (strace attached mid-call) is dropped. -y shows
a descriptor's file after it: 3</var/lib/db/ib_logfile0>, and
3</path>(deleted) once the file is unlinked; the descriptor a call returns
too (openat(...) = 3</path>: Call.rpath).
"""
import glob
import os
import re
from collections import deque

_PID = re.compile(r"^(?:\[pid\s+(\d+)\]|(\d+))\s+")
_TS = re.compile(r"^(\d+\.\d+|\d\d:\d\d:\d\d(?:\.\d+)?)\s+")
_UNFINISHED = " <unfinished ...>"
_RESUMED = re.compile(r"^<\.\.\. (?:(\w+) )?resumed>\s?(.*)$")
_HEAD = re.compile(r"^(\w+)\(")
_SIGNAL = re.compile(r"^--- (SIG\w+|\w+) (.*?)\s*---$")
_EXIT = re.compile(r"^\+\+\+ (?:exited with (\d+)|killed by (SIG\w+)(.*?)) \+\+\+$")
_CALL = re.compile(r"^(\w+)\((.*)\)\s+= (0x[0-9a-fA-F]+|-?\d+|\?)(?:<(.*?)>)?(.*?)(?: <(\d+\.\d+)>)?$")
_ERRNO = re.compile(r"^\s*(E[A-Z0-9]+) \((.*?)\)")
_NOTE = re.compile(r"^\s*\((.*)\)\s*$")
_FD = re.compile(r"^\s*(-?\d+|AT_FDCWD)(?:<(.*)>(?:\(deleted\))?)?\s*$")
_STR = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _seconds(ts):
    """-ttt's seconds as they are; -t/-tt's wall-clock time as seconds since midnight."""
    if ts is None:
        return None
    if ":" not in ts:
        return float(ts)
    h, m, s = ts.split(":")
    return int(h) * 3600 + int(m) * 60 + float(s)


def split_args(args):
    """A call's argument text split at its top-level commas: quotes, (), [],
    {} and -y's <path> nest; "..." after a string stays with it."""
    out, depth, cur, i, n = [], 0, [], 0, len(args)
    while i < n:
        ch = args[i]
        if ch == '"':
            j = i + 1
            while j < n and args[j] != '"':
                j += 2 if args[j] == "\\" else 1
            cur.append(args[i:j + 1])
            i = j + 1
            continue
        if ch == "<" and cur and re.match(r"-?\d+$|AT_FDCWD$", "".join(cur).strip()):
            j = args.find(">", i)
            j = n - 1 if j < 0 else j
            cur.append(args[i:j + 1])
            i = j + 1
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
            i += 1
            continue
        cur.append(ch)
        i += 1
    last = "".join(cur).strip()
    if last or out:
        out.append(last)
    return out


class Call:
    """One system call. pid (int or None), ts (seconds, or None without -t),
    call (its name), args (the text between the parentheses, both halves of
    a split call), ret (int; None for strace's '?' and for a call that never
    finished), errno ('ENOENT'), errmsg ('No such file or directory'), note
    (what follows ret in parentheses otherwise: '(Timeout)'), rpath (-y's
    file of the descriptor returned), dur (-T seconds), finished, split (it
    came in two halves), lineno (of its first line) and text (the call as one
    line, pid and timestamp left out)."""

    __slots__ = ("pid", "ts", "call", "args", "ret", "errno", "errmsg", "note", "rpath", "dur",
                 "finished", "split", "lineno", "text", "_argv")

    def __init__(self, pid, ts, call, head, lineno):
        self.pid, self.ts, self.call, self.lineno = pid, ts, call, lineno
        self.args, self.text = head, None
        self.ret = self.errno = self.errmsg = self.note = self.rpath = self.dur = None
        self.finished = self.split = False
        self._argv = None

    def __repr__(self):
        return "Call(%r, %r)" % (self.pid, self.text)

    @property
    def argv(self):
        """The arguments, split (split_args)."""
        if self._argv is None:
            self._argv = split_args(self.args)
        return self._argv

    def fd(self, i=0):
        """Argument i as a descriptor: (fd, path), fd an int (AT_FDCWD: None) and
        path -y's file (None without -y); (None, None) if it is no descriptor."""
        a = self.argv
        m = _FD.match(a[i]) if i < len(a) else None
        if not m:
            return None, None
        return (None if m.group(1) == "AT_FDCWD" else int(m.group(1))), m.group(2)

    @property
    def path(self):
        """-y's file of the first argument (None if it names none)."""
        return self.fd(0)[1]

    def strings(self):
        """The string arguments, unquoted as strace printed them (escapes kept)."""
        return _STR.findall(self.args)

    def ints(self, *idx):
        """The arguments at idx as ints (None where one is not a number)."""
        a = self.argv
        out = []
        for i in idx:
            try:
                out.append(int(a[i], 0))
            except (IndexError, ValueError):
                out.append(None)
        return out

    @property
    def failed(self):
        return self.errno is not None

    def _finish(self, tail):
        """Complete the call from the text after its name and '(' (the
        whole of an unsplit call, or its head plus the resumed half)."""
        line = self.call + "(" + tail
        m = _CALL.match(line)
        self.text = line
        if not m:       # unparseable ending: kept, its result unknown
            self.args = tail
            return
        self.args = m.group(2)
        ret = m.group(3)
        self.ret = None if ret == "?" else int(ret, 0)
        self.rpath = m.group(4)
        rest = m.group(5)
        e = _ERRNO.match(rest)
        if e:
            self.errno, self.errmsg = e.group(1), e.group(2)
        else:
            n = _NOTE.match(rest)
            self.note = n.group(1) if n else None
        self.dur = float(m.group(6)) if m.group(6) else None
        self.finished = True


class Signal:
    """A signal delivered: pid, ts, sig ('SIGCHLD'), info (the {...} text), lineno."""
    __slots__ = ("pid", "ts", "sig", "info", "lineno")

    def __init__(self, pid, ts, sig, info, lineno):
        self.pid, self.ts, self.sig, self.info, self.lineno = pid, ts, sig, info, lineno

    def __repr__(self):
        return "Signal(%r, %r)" % (self.pid, self.sig)


class Exit:
    """A thread's or process's end: pid, ts, status (exit status, or None),
    signal (the one that killed it, or None), core (it dumped core), lineno."""
    __slots__ = ("pid", "ts", "status", "signal", "core", "lineno")

    def __init__(self, pid, ts, status, sig, core, lineno):
        self.pid, self.ts, self.status, self.signal, self.core, self.lineno = pid, ts, status, sig, core, lineno

    def __repr__(self):
        return "Exit(%r, %r)" % (self.pid, self.status if self.signal is None else self.signal)


def parse(lines, pid=None):
    """Calls, Signals and Exits of strace output LINES (an iterable of lines,
    or a path), in the order of their first lines. pid: of every line that
    names none (a -ff file's, or strace without -f)."""
    if isinstance(lines, (str, os.PathLike)):
        with open(lines, errors="replace") as f:
            yield from parse(f, pid)
        return
    queue = deque()     # events in the order of their first lines
    waiting = {}        # pid -> its call's first half, not resumed yet (a thread makes one call at a time)
    for lineno, line in enumerate(lines, 1):
        line = line.rstrip("\n")
        p, m = pid, _PID.match(line)
        if m:
            p = int(m.group(1) or m.group(2))
            line = line[m.end():]
        m = _TS.match(line)
        ts = None
        if m:
            ts = _seconds(m.group(1))
            line = line[m.end():]
        ev = None
        if line.startswith("<..."):
            m = _RESUMED.match(line)
            c = waiting.pop(p, None) if m else None
            if c is not None and m.group(1) in (None, c.call):
                c._finish(c.args + m.group(2))
        elif line.startswith("---"):
            m = _SIGNAL.match(line)
            if m:
                ev = Signal(p, ts, m.group(1), m.group(2), lineno)
        elif line.startswith("+++"):
            m = _EXIT.match(line)
            if m:
                ev = Exit(p, ts, int(m.group(1)) if m.group(1) else None, m.group(2),
                          "core dumped" in (m.group(3) or ""), lineno)
                waiting.pop(p, None)        # its call never finishes
        else:
            m = _HEAD.match(line)
            if m:
                waiting.pop(p, None)        # a resumed line strace never wrote
                ev = Call(p, ts, m.group(1), "", lineno)
                rest = line[m.end():]
                if rest.endswith(_UNFINISHED):
                    ev.args, ev.split, ev.text = rest[:-len(_UNFINISHED)], True, line
                    waiting[p] = ev
                else:
                    ev._finish(rest)
        if ev is not None:
            queue.append(ev)
        # hand out what no unfinished call holds back
        while queue and waiting.get(queue[0].pid) is not queue[0]:
            yield queue.popleft()
    yield from queue


def calls(lines, pid=None):
    """The Calls of parse(LINES, pid)."""
    return (c for c in parse(lines, pid) if isinstance(c, Call))


def ff_files(prefix):
    """strace -ff's files PREFIX.<pid>, as (pid, path), by pid."""
    out = []
    for path in glob.glob(glob.escape(prefix) + ".*"):
        tail = path.rsplit(".", 1)[1]
        if tail.isdigit():
            out.append((int(tail), path))
    return sorted(out)


def parse_ff(prefix):
    """parse() of every strace -ff file PREFIX.<pid> in turn, pid set from its name."""
    for pid, path in ff_files(prefix):
        yield from parse(path, pid)
