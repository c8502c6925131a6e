"""dbfio.labtool - a lab/ tool (a Python script without a .py name) loaded as a
module, so a test can call its functions: load(repo, "txncalib")."""
import importlib.machinery
import importlib.util
import os


def load(repo, name):
    """The module made of <repo>/lab/<name>, executed once (its __main__ block does not run)."""
    loader = importlib.machinery.SourceFileLoader(name, os.path.join(repo, "lab", name))
    spec = importlib.util.spec_from_loader(name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod
