"""dbfio.strace: one grammar for strace -f [-ff] [-y] [-t|-tt|-ttt] [-T]."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from dbfio import strace  # noqa: E402
from dbfio.strace import Call, Exit, Signal  # noqa: E402


def events(text, pid=None):
    return list(strace.parse(text.splitlines(True), pid))


def test_plain():
    (c,) = events('1234  openat(AT_FDCWD, "/tmp/x", O_RDWR|O_CREAT, 0644) = 3\n')
    assert (c.pid, c.call, c.ret, c.errno, c.finished, c.split) == (1234, "openat", 3, None, True, False)
    assert c.argv == ["AT_FDCWD", '"/tmp/x"', "O_RDWR|O_CREAT", "0644"]
    assert c.strings() == ["/tmp/x"] and c.fd(0) == (None, None) and c.ts is None
    assert c.text == 'openat(AT_FDCWD, "/tmp/x", O_RDWR|O_CREAT, 0644) = 3'


def test_no_pid_and_given_pid():
    (c,) = events("fsync(3) = 0\n")
    assert c.pid is None and c.call == "fsync" and c.ret == 0
    (c,) = events("fsync(3) = 0\n", pid=77)
    assert c.pid == 77
    (c,) = events("[pid  4321] fsync(3) = 0\n")
    assert c.pid == 4321


def test_y_paths_and_timestamps():
    ev = events('10 1700000000.123456 pwrite64(5</d/ib_logfile0>, "\\0\\1"..., 512, 2048) = 512 <0.000042>\n'
                '10 12:00:01.500000 openat(AT_FDCWD</d>, "t1.ibd", O_RDWR) = 7</d/t1.ibd>\n'
                "10 12:00:02 fsync(7</d/a, b>) = 0\n")
    w, o, f = ev
    assert w.ts == 1700000000.123456 and w.dur == 0.000042 and w.path == "/d/ib_logfile0"
    assert w.fd(0) == (5, "/d/ib_logfile0") and w.ints(2, 3) == [512, 2048] and w.ret == 512
    assert o.ts == 12 * 3600 + 1.5 and o.rpath == "/d/t1.ibd" and o.ret == 7 and o.fd(0) == (None, "/d")
    assert f.path == "/d/a, b" and f.argv == ["7</d/a, b>"] and f.ts == 12 * 3600 + 2


def test_y_deleted():
    # -y of a descriptor whose file was unlinked: the path, then "(deleted)"
    (c,) = events("7 1.5 close(8</d/.dbfio-lock>(deleted)) = 0 <0.000348>\n")
    assert c.fd(0) == (8, "/d/.dbfio-lock") and c.path == "/d/.dbfio-lock" and c.ret == 0


def test_errors():
    (c,) = events('99 openat(AT_FDCWD, "/nope", O_RDONLY) = -1 ENOENT (No such file or directory) <0.000010>\n')
    assert (c.ret, c.errno, c.errmsg, c.failed, c.dur) == (-1, "ENOENT", "No such file or directory", True, 1e-05)
    (c,) = events("99 futex(0x1, FUTEX_WAIT, 0, NULL) = ? ERESTARTSYS (To be restarted if SA_RESTART is set)\n")
    assert c.ret is None and c.errno == "ERESTARTSYS" and c.finished
    (c,) = events("99 poll([{fd=3, events=POLLIN}], 1, 100) = 0 (Timeout)\n")
    assert c.ret == 0 and c.note == "Timeout" and not c.failed
    (c,) = events("99 mmap(NULL, 4096, PROT_READ, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f0000001000\n")
    assert c.ret == 0x7f0000001000


def test_unfinished_resumed_across_pids():
    ev = events("1 pread64(3</d/16384>,  <unfinished ...>\n"
                "2 fsync(4</d/db> <unfinished ...>\n"
                "3 pwrite64(5</d/16385>, \"x\"..., 16384, 0) = 16384\n"
                "2 <... fsync resumed>) = 0\n"
                '1 <... pread64 resumed>"\\0"..., 16384, 32768) = 16384 <0.001000>\n'
                "3 close(5</d/16385>) = 0\n")
    assert [(c.pid, c.call) for c in ev] == [(1, "pread64"), (2, "fsync"), (3, "pwrite64"), (3, "close")]
    r, s, w, cl = ev
    assert r.split and r.finished and r.ret == 16384 and r.ints(2, 3) == [16384, 32768] and r.dur == 0.001
    assert r.path == "/d/16384" and r.text == 'pread64(3</d/16384>, "\\0"..., 16384, 32768) = 16384 <0.001000>'
    assert s.split and s.ret == 0 and s.path == "/d/db" and s.lineno == 2
    assert not w.split and w.lineno == 3


def test_resumed_without_name_and_orphan():
    ev = events("5 read(3,  <unfinished ...>\n6 <... write resumed>) = 1\n5 <... resumed>\"a\", 1) = 1\n")
    (c,) = ev
    assert c.pid == 5 and c.ret == 1 and c.argv == ["3", '"a"', "1"]


def test_signals_and_exits():
    ev = events("7 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=8, si_status=0} ---\n"
                "8 exit_group(0)                     = ?\n"
                "8 +++ exited with 0 +++\n"
                "9 read(0,  <unfinished ...>\n"
                "10 write(1, \"x\", 1) = 1\n"
                "9 +++ killed by SIGKILL +++\n"
                "11 +++ killed by SIGSEGV (core dumped) +++\n")
    sig, ex, e8, rd, wr, k9, k11 = ev
    assert isinstance(sig, Signal) and sig.sig == "SIGCHLD" and sig.info.startswith("{si_signo")
    assert isinstance(ex, Call) and ex.call == "exit_group" and ex.ret is None and ex.finished
    assert isinstance(e8, Exit) and (e8.status, e8.signal) == (0, None)
    # the read a SIGKILL ended never finishes: kept, in its place
    assert isinstance(rd, Call) and rd.split and not rd.finished and rd.ret is None and rd.pid == 9
    assert wr.call == "write"
    assert (k9.signal, k9.status, k9.core) == ("SIGKILL", None, False) and k11.core


def test_signal_inside_split_call():
    ev = events("1 fsync(3</f> <unfinished ...>\n1 --- SIGALRM {si_signo=SIGALRM} ---\n"
                "1 <... fsync resumed>) = 0\n")
    assert [type(e).__name__ for e in ev] == ["Call", "Signal"]
    assert ev[0].ret == 0 and ev[0].finished


def test_ff_files(tmp_path):
    (tmp_path / "st.12").write_text("1.5 pwrite64(3</w/0001>, \"\"..., 8192, 0) = 8192\n")
    (tmp_path / "st.3").write_text("clone3({flags=CLONE_VM, exit_signal=0}, 88) = 12\n")
    (tmp_path / "st.x").write_text("junk\n")
    ev = list(strace.parse_ff(str(tmp_path / "st")))
    assert [(c.pid, c.call, c.ret) for c in ev] == [(3, "clone3", 12), (12, "pwrite64", 8192)]
    assert ev[0].argv == ["{flags=CLONE_VM, exit_signal=0}", "88"] and ev[1].ts == 1.5
    assert [c.call for c in strace.calls(str(tmp_path / "st.12"))] == ["pwrite64"]


def test_split_args_nesting():
    a = strace.split_args('3</a,b>, [{iov_base="x,y", iov_len=3}, {iov_base="", iov_len=0}], 2, 0')
    assert a == ['3</a,b>', '[{iov_base="x,y", iov_len=3}, {iov_base="", iov_len=0}]', "2", "0"]
    assert strace.split_args("") == [] and strace.split_args('"a\\"b,c"') == ['"a\\"b,c"']
