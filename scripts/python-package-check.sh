#!/usr/bin/env bash
# Installs clients/python into fresh virtual environments, the two ways its README says
# (`pip install ./clients/python`, and a git URL with `#subdirectory=clients/python`), then imports
# it there. PyPI is not reachable on every machine this runs on, so pip builds with the
# environment's own setuptools (--no-build-isolation --no-index); with PyPI the plain commands
# fetch setuptools into an isolated build instead.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if ! command -v python3 >/dev/null 2>&1; then
  echo "python3 not found: the Python package check was skipped"
  exit 0
fi
work="$(mktemp -d -t py-package-XXXXXX)"
trap 'rm -rf "$work"' EXIT
offline=(--no-index --disable-pip-version-check --quiet)
expected="$(node -p "require('$root/package.json').version")"

check_install() {
  local name="$1" source="$2"
  python3 -m venv "$work/$name"
  "$work/$name/bin/pip" install "${offline[@]}" "$source"
  # Run from elsewhere, so that the import comes from the installed package, not this checkout.
  (cd "$work" && "$work/$name/bin/python" - "$expected" <<'PY'
import importlib.metadata
import pathlib
import sys

import adk_slack_approvals
from adk_slack_approvals import ApprovalsClient, verify_attestation
from adk_slack_approvals.plugin import ApprovalsPlugin

package = pathlib.Path(adk_slack_approvals.__file__).parent
assert "site-packages" in str(package), f"imported from {package}, not the installed package"
assert (package / "py.typed").is_file(), "py.typed is missing from the installed package"
version = importlib.metadata.version("adk-slack-approvals")
assert version == sys.argv[1], f"installed version {version}, the app is {sys.argv[1]}"
assert importlib.metadata.requires("adk-slack-approvals") == ['google-adk>=1.14; extra == "adk"'], (
    importlib.metadata.requires("adk-slack-approvals")
)
print(f"installed adk-slack-approvals {version}: imports, typed, no runtime dependency")
PY
  )
}

echo "pip install ./clients/python"
check_install from-folder "$root/clients/python"

# A git URL needs a repository: this checkout's committed state, cloned to a scratch folder.
if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
  echo "pip install 'git+file://…#subdirectory=clients/python'"
  git clone --quiet "$root" "$work/clone"
  check_install from-git "git+file://$work/clone#subdirectory=clients/python"
fi
