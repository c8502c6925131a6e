"""Writing a results page: the repository's own paths made relative.

A page under results/ names the commands that produced its numbers, and a
reader runs them from the repository root of their own clone: a path of the
machine that wrote the page (/work/x/build/txn.so) is of no use to them and
says where somebody's checkout was. relative() rewrites every absolute path
under the repository into one relative to its root; page() writes a page
through it, whole or not at all (a temporary name, then rename).
"""
import contextlib
import io
import os
import re


def relative(text, repo):
    """TEXT with REPO/x written x and REPO itself (followed by no more path) '.'."""
    repo = os.path.realpath(repo).rstrip("/")
    if not repo:
        return text
    text = text.replace(repo + "/", "")
    return re.sub(re.escape(repo) + r"(?![\w.-])", ".", text)


@contextlib.contextmanager
def page(path, repo):
    """with page(PATH, REPO) as f: f.write(...): PATH gets what was written,
    REPO's paths relative, in one rename."""
    buf = io.StringIO()
    yield buf
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(relative(buf.getvalue(), repo))
    os.replace(tmp, path)
