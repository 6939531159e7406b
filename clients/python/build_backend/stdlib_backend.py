"""A PEP 517 build backend that needs nothing but the standard library.

The package has no runtime dependency, and its build should not have one either: with this
backend `pip install ./clients/python` (or a git URL with `#subdirectory=clients/python`) works
offline, with no setuptools or wheel to download into the isolated build environment.

It builds a pure-Python wheel of `adk_slack_approvals/` and an sdist, from the `[project]` table
of pyproject.toml. That table is kept to what `_read_project` understands (strings, arrays of
strings, and the optional-dependencies table), so Python 3.10, which has no tomllib, reads it too.
"""

from __future__ import annotations

import base64
import hashlib
import io
import pathlib
import re
import tarfile
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = "adk_slack_approvals"

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = None


def _read_project() -> dict:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    if tomllib is not None:
        data = tomllib.loads(text)
        return {**data["project"], "optional-dependencies": data["project"].get("optional-dependencies", {})}
    project: dict = {"optional-dependencies": {}}
    section = None
    for line in text.splitlines():
        line = line.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        header = re.fullmatch(r"\[([\w.-]+)\]", line)
        if header:
            section = header.group(1)
            continue
        pair = re.fullmatch(r'([\w-]+)\s*=\s*(".*"|\[.*\])', line)
        if not pair or section not in ("project", "project.optional-dependencies"):
            continue
        key, raw = pair.groups()
        value = re.findall(r'"((?:[^"\\]|\\.)*)"', raw) if raw.startswith("[") else raw[1:-1]
        target = project if section == "project" else project["optional-dependencies"]
        target[key] = value
    return project


def _metadata(project: dict) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
        f"Summary: {project.get('description', '')}",
        f"Requires-Python: {project.get('requires-python', '')}",
    ]
    lines += [f"Requires-Dist: {dependency}" for dependency in project.get("dependencies", [])]
    for extra, dependencies in project["optional-dependencies"].items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f'Requires-Dist: {dependency}; extra == "{extra}"' for dependency in dependencies]
    lines.append("Description-Content-Type: text/markdown")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return "\n".join(lines) + "\n\n" + readme


def _package_files() -> list[pathlib.Path]:
    return sorted(
        path
        for path in (ROOT / PACKAGE).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    )


def _dist_name(project: dict) -> str:
    return f"{re.sub(r'[-_.]+', '_', project['name'])}-{project['version']}"


def get_requires_for_build_wheel(config_settings=None) -> list[str]:
    return []


def get_requires_for_build_sdist(config_settings=None) -> list[str]:
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None) -> str:
    project = _read_project()
    name = _dist_name(project)
    info = f"{name}.dist-info"
    entries = [(path.relative_to(ROOT).as_posix(), path.read_bytes()) for path in _package_files()]
    entries.append((f"{info}/METADATA", _metadata(project).encode("utf-8")))
    wheel = "Wheel-Version: 1.0\nGenerator: stdlib_backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    entries.append((f"{info}/WHEEL", wheel.encode("utf-8")))
    record = io.StringIO()
    for path, data in entries:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.write(f"{path},sha256={digest},{len(data)}\n")
    record.write(f"{info}/RECORD,,\n")
    entries.append((f"{info}/RECORD", record.getvalue().encode("utf-8")))
    filename = f"{name}-py3-none-any.whl"
    with zipfile.ZipFile(pathlib.Path(wheel_directory) / filename, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, data in entries:
            archive.writestr(path, data)
    return filename


def build_sdist(sdist_directory, config_settings=None) -> str:
    project = _read_project()
    name = _dist_name(project)
    files = [ROOT / "pyproject.toml", ROOT / "README.md", *_package_files()]
    files += sorted((ROOT / "build_backend").glob("*.py"))
    filename = f"{name}.tar.gz"
    with tarfile.open(pathlib.Path(sdist_directory) / filename, "w:gz") as archive:
        for path in files:
            archive.add(path, arcname=f"{name}/{path.relative_to(ROOT).as_posix()}")
        info = _metadata(project).encode("utf-8")
        entry = tarfile.TarInfo(f"{name}/PKG-INFO")
        entry.size = len(info)
        archive.addfile(entry, io.BytesIO(info))
    return filename
