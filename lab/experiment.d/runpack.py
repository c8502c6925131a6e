# lab/experiment.d/runpack.py - one experiment's run folders as one file.
# A seed's sweeps write hundreds of small files (fio JSON, sidecars, fio's
# stderr, summaries); results/ keeps them as runs/seed00N.jsonl, one JSON
# object per line, {"path": "<path under runs/seed00N/>", "text": "<content>"},
# sorted by path: a changed file is a changed line in git's diffs. Files are
# text (UTF-8); a folder packed and unpacked again is the same bytes, but
# for the checkout's own path when pack() is given it (relative()).
import json, os, re, shutil, tempfile


def relative(text, root):
    """text with the checkout's own path root written relative to it
    ("/tmp/x/build" -> "build", "/tmp/x" -> "."): results/ names no
    machine's paths."""
    if not root:
        return text
    root = os.path.abspath(root)
    return re.sub(re.escape(root) + r"(/|(?![\w.-]))", lambda m: "" if m.group(1) else ".", text)


def pack(folder, path, root=None):
    """Every file under folder into the pack path (written atomically), the
    paths of the checkout root in them made relative (relative()); returns
    the number of files."""
    rows = []
    for d, subs, fs in os.walk(folder):
        subs.sort()
        for fn in fs:
            p = os.path.join(d, fn)
            with open(p, encoding="utf-8", newline="") as fi:
                rows.append((os.path.relpath(p, folder), relative(fi.read(), root)))
    rows.sort()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), prefix=".runpack-")
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as fo:
        for rel, text in rows:
            fo.write(json.dumps({"path": rel, "text": text}, ensure_ascii=False) + "\n")
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)
    return len(rows)


def read(path):
    """{path under the run folder: text} of a pack, in the pack's order."""
    out = {}
    with open(path, encoding="utf-8", newline="") as fi:
        for n, line in enumerate(fi, 1):
            try:
                row = json.loads(line)
                out[row["path"]] = row["text"]
            except (ValueError, KeyError, TypeError):
                raise ValueError(f"{path}:{n}: not a runpack line") from None
    return out


def unpack(path, folder):
    """The pack's files under folder (created; files already there are
    overwritten); returns the number of files."""
    files = read(path)
    root = os.path.abspath(folder)
    for rel, text in files.items():
        dst = os.path.abspath(os.path.join(root, rel))
        if os.path.isabs(rel) or not dst.startswith(root + os.sep):
            raise ValueError(f"{path}: {rel}: outside the run folder")
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "w", encoding="utf-8", newline="") as fo:
            fo.write(text)
    return len(files)


def pack_folder(folder, path, root=None):
    """pack, then remove the folder: the pack is what stays."""
    n = pack(folder, path, root)
    shutil.rmtree(folder)
    return n
