#!/usr/bin/env bash
# Fetches the source trees scripts/python-adk-env.sh builds from, at the commits listed in
# scripts/python-adk-sources.txt, into one folder per project (PyPI need not be reachable; GitHub
# must be, or a mirror of it):
#
#   scripts/python-adk-sources.sh <folder>
#   PYTHON_ADK_SOURCES=<folder> scripts/python-adk-env.sh
#
# SOURCES_GIT_BASE (default https://github.com) is prefixed to each owner/name. Only the listed
# commit is fetched (depth 1); a folder already at its commit is left as it is.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
target="${1:?usage: python-adk-sources.sh <folder>}"
base="${SOURCES_GIT_BASE:-https://github.com}"
mkdir -p "$target"
grep -v '^#' "$root/scripts/python-adk-sources.txt" | while read -r tree repo commit; do
  [ -n "$tree" ] || continue
  dir="$target/$tree"
  if [ "$(git -C "$dir" rev-parse -q --verify HEAD 2>/dev/null)" = "$commit" ]; then
    echo "$tree: at $commit already"
    continue
  fi
  rm -rf "$dir"
  git init -q "$dir"
  git -C "$dir" fetch -q --depth 1 "$base/$repo" "$commit"
  git -C "$dir" -c advice.detachedHead=false checkout -q FETCH_HEAD
  echo "$tree: $repo $commit"
done
