"""dbfio.pages: a page's paths under the repository become relative."""
import os

from dbfio import pages


def test_relative_paths(tmp_path):
    repo = str(tmp_path / "main")
    os.makedirs(repo)
    t = (f"lab/experiment --out {repo}/results\n"
         f"fio --ioengine=external:{repo}/build/txn.so x.fio\n"
         f"cd {repo} && make\n"
         f"CEPH_CONF={repo}/build/cluster/ceph.conf tools/sweep\n"
         f"{repo}-other/x and {repo}.bak stay\n")
    got = pages.relative(t, repo)
    assert got == ("lab/experiment --out results\n"
                   "fio --ioengine=external:build/txn.so x.fio\n"
                   "cd . && make\n"
                   "CEPH_CONF=build/cluster/ceph.conf tools/sweep\n"
                   f"{repo}-other/x and {repo}.bak stay\n"), got


def test_page_written_whole(tmp_path):
    repo = str(tmp_path)
    out = tmp_path / "p.md"
    with pages.page(str(out), repo) as f:
        f.write(f"# t\n`{repo}/lab/bench --rounds 5`\n")
        assert not out.exists()         # nothing under the name before the end
    assert out.read_text() == "# t\n`lab/bench --rounds 5`\n"
    assert [p.name for p in tmp_path.iterdir()] == ["p.md"]
