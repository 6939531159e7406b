#!/usr/bin/env bash
# The Python client's unit tests (stdlib unittest), run by `npm run check` when python3 is here.
# Its live test against the app is test/e2e/python-client.test.ts (vitest, integration).
set -euo pipefail
cd "$(dirname "$0")/../clients/python"
if ! command -v python3 >/dev/null 2>&1; then
  echo "python3 not found: the Python client's tests were skipped"
  exit 0
fi
python3 -m unittest discover -s tests -t . "$@"
