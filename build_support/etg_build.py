"""The build backend of the ``etg`` package: setuptools, plus the commit it is built from.

``python -m build`` (and ``pip install .``, ``pip wheel .``) call this backend
(``[build-system] build-backend`` in pyproject.toml). It is setuptools' own, except that
:func:`build_sdist` and :func:`build_wheel` first write ``tools/build_info.json`` with the
commit of the tree (``git rev-parse HEAD``), so that ``etg --version`` of an installed wheel
names it (:mod:`tools.version`):

- built from a git checkout: the commit, and whether tracked files were modified;
- built from an sdist (no ``.git``; ``python -m build`` builds the wheel that way): the file
  the sdist carries is kept;
- built from a tree without git and without the file: ``"commit": null`` (the version then
  says the commit is unknown).

They also copy ``docs/install.md`` to ``tools/install_guide.md``, which ``etg help install``
prints (the systemd units and ``etg install`` point to it, and a wheel carries no ``docs/``);
from an sdist, without ``docs/``, the copy the sdist carries is kept.

A file this backend wrote into the tree is removed again after the build (the tree stays as
it was). Editable installs (``pip install -e``) get no file: in a checkout ``etg --version``
asks git when it runs.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any, Final

from setuptools import build_meta as _setuptools

# Everything but the two builds is setuptools' own.
build_editable = _setuptools.build_editable
get_requires_for_build_editable = _setuptools.get_requires_for_build_editable
get_requires_for_build_sdist = _setuptools.get_requires_for_build_sdist
get_requires_for_build_wheel = _setuptools.get_requires_for_build_wheel
prepare_metadata_for_build_editable = _setuptools.prepare_metadata_for_build_editable
prepare_metadata_for_build_wheel = _setuptools.prepare_metadata_for_build_wheel


def _version_module(root: Path) -> ModuleType:
    """``tools/version.py`` of the tree, loaded by path (the project is not importable in
    an isolated build environment; the module needs only the standard library)."""
    spec = importlib.util.spec_from_file_location("_etg_version", root / "tools" / "version.py")
    if spec is None or spec.loader is None:  # pragma: no cover - the file is in the tree
        raise RuntimeError("tools/version.py is missing from the tree being built")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@contextmanager
def _build_info() -> Iterator[None]:
    """Write ``tools/build_info.json`` for the length of a build (see the module doc)."""
    root = Path.cwd()
    version = _version_module(root)
    path = root / "tools" / version.BUILD_INFO
    commit = version.git_commit(root)
    wrote = False
    if commit is not None or not path.exists():
        path.write_text(version.build_info_text(commit), encoding="utf-8")
        wrote = True
    try:
        yield
    finally:
        if wrote:
            path.unlink(missing_ok=True)


#: The install guide of the checkout, and where a build puts its copy (``etg help install``).
GUIDE_SOURCE: Final = Path("docs") / "install.md"
GUIDE: Final = Path("tools") / "install_guide.md"


@contextmanager
def _install_guide() -> Iterator[None]:
    """Copy the install guide into the package for the length of a build (see the module
    doc)."""
    root = Path.cwd()
    source, target = root / GUIDE_SOURCE, root / GUIDE
    wrote = source.exists()
    if wrote:
        shutil.copyfile(source, target)
    try:
        yield
    finally:
        if wrote:
            target.unlink(missing_ok=True)


def build_sdist(sdist_directory: str, config_settings: dict[str, Any] | None = None) -> str:
    """setuptools' sdist, carrying ``tools/build_info.json`` and the install guide."""
    with _build_info(), _install_guide():
        return str(_setuptools.build_sdist(sdist_directory, config_settings))


def build_wheel(
    wheel_directory: str,
    config_settings: dict[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    """setuptools' wheel, carrying ``tools/build_info.json`` and the install guide."""
    with _build_info(), _install_guide():
        return str(_setuptools.build_wheel(wheel_directory, config_settings, metadata_directory))
