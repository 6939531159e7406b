#!/usr/bin/env bash
# Builds a Python environment with a real google-adk from unpacked source trees, for machines
# that cannot reach PyPI. Nothing on the confirmation path is stood in for: google-adk,
# google-genai and their pure-Python dependencies are the projects' own sources.
#
#   PYTHON_ADK_SOURCES=/path/to/trees scripts/python-adk-env.sh [target]
#
# PYTHON_ADK_SOURCES holds one folder per project (each the root of its repository snapshot),
# named as in MANIFEST below; scripts/python-adk-sources.sh fetches them at the commits this was
# proven with (scripts/python-adk-sources.txt). target defaults to ../shared/python-adk beside this checkout, where
# .ci/run looks for it. The environment is a venv with the machine's site-packages visible
# (pydantic 2, PyYAML, requests, click come from there) and each project's packages copied in,
# with a .dist-info (name, version, entry points) so that importlib.metadata finds them, and a
# launcher in bin/ for each command a project declares (google-adk's `adk`).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
sources="${PYTHON_ADK_SOURCES:?PYTHON_ADK_SOURCES: the folder of unpacked source trees}"
target="${1:-$root/../shared/python-adk}"
python3 -m venv --system-site-packages --clear "$target"
"$target/bin/python" - "$sources" <<'PY'
import pathlib
import re
import shutil
import sys
import sysconfig
import tomllib

sources = pathlib.Path(sys.argv[1])
site = pathlib.Path(sysconfig.get_paths()["purelib"])

# distribution, source tree, folder to copy (its name is the top-level package), version file
MANIFEST = [
    ("google-adk", "adk-python", "src/google", "src/google/adk/version.py"),
    ("google-genai", "python-genai", "google", "google/genai/version.py"),
    ("google-auth", "google-auth-library-python", "google", "google/auth/version.py"),
    ("httpx", "httpx", "httpx", "httpx/__version__.py"),
    ("httpcore", "httpcore", "httpcore", "httpcore/__init__.py"),
    ("h11", "h11", "h11", "h11/_version.py"),
    ("anyio", "anyio", "src/anyio", None),
    ("tenacity", "tenacity", "tenacity", None),
    ("websockets", "websockets", "src/websockets", "src/websockets/version.py"),
    ("opentelemetry-api", "opentelemetry-python", "opentelemetry-api/src/opentelemetry",
     "opentelemetry-api/src/opentelemetry/version/__init__.py"),
    ("opentelemetry-sdk", "opentelemetry-python", "opentelemetry-sdk/src/opentelemetry",
     "opentelemetry-sdk/src/opentelemetry/sdk/version/__init__.py"),
    ("opentelemetry-semantic-conventions", "opentelemetry-python",
     "opentelemetry-semantic-conventions/src/opentelemetry",
     "opentelemetry-semantic-conventions/src/opentelemetry/semconv/version/__init__.py"),
    ("cachetools", "cachetools", "src/cachetools", "src/cachetools/__init__.py"),
    ("pyasn1-modules", "pyasn1-modules", "pyasn1_modules", "pyasn1_modules/__init__.py"),
    # Newer than the machine's: anyio and fastapi need it.
    ("typing-extensions", "typing_extensions", "src/typing_extensions.py", None),
    ("fastapi", "fastapi", "fastapi", "fastapi/__init__.py"),
    ("annotated-doc", "annotated-doc", "src/annotated_doc", "src/annotated_doc/__init__.py"),
    ("starlette", "starlette", "starlette", "starlette/__init__.py"),
    ("uvicorn", "uvicorn", "uvicorn", "uvicorn/__init__.py"),
    ("authlib", "authlib", "authlib", "authlib/consts.py"),
    ("tzlocal", "tzlocal", "tzlocal", None),
    ("sqlalchemy", "sqlalchemy", "lib/sqlalchemy", "lib/sqlalchemy/__init__.py"),
    ("graphviz", "graphviz", "graphviz", "graphviz/__init__.py"),
    # google.adk.agents imports its MCP instruction provider: mcp 1.x and what it imports.
    ("mcp", "mcp", "src/mcp", None),
    ("httpx-sse", "httpx-sse", "src/httpx_sse", "src/httpx_sse/__init__.py"),
    ("sse-starlette", "sse-starlette", "sse_starlette", None),
    ("python-multipart", "python-multipart", "python_multipart", "python_multipart/__init__.py"),
    ("pyjwt", "pyjwt", "jwt", "jwt/__init__.py"),
    # The api_server (google.adk.cli.fast_api) watches the agents folder.
    ("watchdog", "watchdog", "src/watchdog", None),
]

VERSION = re.compile(r"""^(?:__version__|version)\s*(?::\s*str\s*)?=\s*['"]([^'"]+)['"]""", re.M)


def version_of(tree: pathlib.Path, version_file):
    if version_file is not None:
        found = VERSION.search((tree / version_file).read_text(encoding="utf-8"))
        if found:
            return found.group(1)
    project = tomllib.loads((tree / "pyproject.toml").read_text(encoding="utf-8")).get("project", {})
    if isinstance(project.get("version"), str):
        return project["version"]
    # A version set by the build from git tags (setuptools-scm): this snapshot has no tags.
    return "0.0.0+source"


def pyproject_of(tree: pathlib.Path, package_dir: str) -> dict:
    # The pyproject.toml nearest the copied folder (a monorepo has one per distribution).
    folder = (tree / package_dir).parent
    while folder != tree.parent:
        if (folder / "pyproject.toml").is_file():
            return tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))
        folder = folder.parent
    return {}


for name, tree_name, package_dir, version_file in MANIFEST:
    tree = sources / tree_name
    source = tree / package_dir
    if source.is_file():  # a single-module distribution
        shutil.copy2(source, site / source.name)
    elif source.is_dir():
        shutil.copytree(source, site / source.name, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("tests", "__pycache__", "*.pyc"))
    else:
        sys.exit(f"{name}: {source} not found (PYTHON_ADK_SOURCES/{tree_name})")
    version = version_of(tree, version_file)
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (info / "INSTALLER").write_text("python-adk-env.sh\n")
    project = pyproject_of(tree, package_dir).get("project", {})
    # Commands (`[project.scripts]`, e.g. google-adk's `adk`) are the console_scripts group.
    entry_points = dict(project.get("entry-points", {}))
    if project.get("scripts"):
        entry_points["console_scripts"] = project["scripts"]
    if entry_points:
        lines = []
        for group, points in entry_points.items():
            lines.append(f"[{group}]")
            lines += [f"{key} = {value}" for key, value in points.items()]
            lines.append("")
        (info / "entry_points.txt").write_text("\n".join(lines))
    # A launcher in the environment's bin/ for each command, as pip would write.
    for command, target in project.get("scripts", {}).items():
        module, _, attribute = target.partition(":")
        launcher = pathlib.Path(sys.prefix) / "bin" / command
        launcher.write_text(
            f"#!{sys.executable}\n"
            "import sys\n"
            f"from {module} import {attribute.split('.')[0]}\n"
            f"sys.exit({attribute}())\n"
        )
        launcher.chmod(0o755)
    # A setuptools-scm version file the build would have written.
    for generated in ("_version.py",):
        package = site / source.name
        if version_file is None and package.is_dir() and not (package / generated).exists():
            (package / generated).write_text(
                f'__version__ = version = "{version}"\n'
                f"__version_tuple__ = version_tuple = {tuple(version.split('.'))!r}\n"
            )
    print(f"{name} {version}")

# The one stand-in, off the confirmation path: the api_server imports its Google Cloud Storage
# eval-set managers at startup (google.cloud.storage, google.cloud.exceptions), whose real
# packages need generated protobuf code that cannot be built from source here. These two modules
# only let that import succeed; using GCS eval sets fails loudly.
cloud = site / "google" / "cloud"
if not (cloud / "storage" / "client.py").exists():
    (cloud / "storage").mkdir(parents=True, exist_ok=True)
    (cloud / "storage" / "__init__.py").write_text(
        '"""Stand-in written by scripts/python-adk-env.sh: google-cloud-storage is not installed."""\n\n\n'
        "class Client:\n"
        "    def __init__(self, *args, **kwargs):\n"
        '        raise RuntimeError("google-cloud-storage is not installed in this environment")\n'
    )
    (cloud / "exceptions.py").write_text(
        '"""Stand-in written by scripts/python-adk-env.sh: google-cloud-core is not installed."""\n\n\n'
        "class NotFound(Exception):\n"
        "    pass\n"
    )
    print("google.cloud.storage, google.cloud.exceptions: stand-ins (the api_server's GCS eval sets)")
PY
# The confirmation path and the api_server, imported the way the tests use them.
(cd "$target" && ./bin/python -W ignore -c "
import google.adk
from google.adk.runners import InMemoryRunner
from google.adk.tools import FunctionTool
from google.adk.plugins.base_plugin import BasePlugin
from google.adk.cli.fast_api import get_fast_api_app
print('google-adk', google.adk.__version__, 'ready in', '$target')
")
