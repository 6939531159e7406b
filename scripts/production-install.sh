#!/usr/bin/env bash
# Installs the app's production dependencies exactly as the Dockerfile's runtime stage does (the
# root, packages/block-kit and packages/adk-approvals; no dev, no optional), in a throwaway folder,
# and checks the result: at most MAX_PACKAGES packages and MAX_MB megabytes of node_modules, and
# no ADK SDK (`@google/adk`), which the app never runs; and that the built command-line tool runs
# there. Prints the figures; exits 1 naming what is over or broken. Uses npm's cache first, so a
# machine that ran `npm install` needs no network for it.
set -euo pipefail
cd "$(dirname "$0")/.."

MAX_PACKAGES="${MAX_PACKAGES:-150}"
MAX_MB="${MAX_MB:-50}"

workdir="$(mktemp -d -t production-install-XXXXXX)"
trap 'rm -rf "$workdir"' EXIT

cp package.json package-lock.json "$workdir/"
for workspace in block-kit adk-approvals; do
  mkdir -p "$workdir/packages/$workspace"
  cp "packages/$workspace/package.json" "$workdir/packages/$workspace/"
done

(
  cd "$workdir"
  npm install --omit=dev --omit=optional --workspace=packages/block-kit \
    --workspace=packages/adk-approvals --include-workspace-root \
    --no-audit --no-fund --ignore-scripts --prefer-offline --loglevel=error >/dev/null
)

# Every installed package folder, the workspace links and the root excluded.
packages="$(cd "$workdir" && npm ls --omit=dev --omit=optional --all --parseable 2>/dev/null |
  grep '/node_modules/' | grep -v '/node_modules/@adk-slack-approvals/' | sort -u)"
count="$(printf '%s\n' "$packages" | grep -c . || true)"
bytes="$(du -sb "$workdir/node_modules" | cut -f1)"
mb="$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1000000 }')"

echo "production install: $count packages, $mb MB of node_modules (limits: $MAX_PACKAGES packages, $MAX_MB MB)"

# The built app on that install, as the image holds it: the two packages' dist/, the app's dist/
# and bin/, and no TypeScript, no tsx, no src/. Compiled into the throwaway folder without type
# checks (`npm run typecheck` does those), so nothing in the checkout is written. Then the
# command a deployment has: `adk-slack-approvals policy check` must run from dist/.
tsc=node_modules/typescript/bin/tsc
for workspace in block-kit adk-approvals; do
  node "$tsc" -p "packages/$workspace/tsconfig.build.json" --noCheck \
    --outDir "$workdir/packages/$workspace/dist"
done
node "$tsc" -p tsconfig.build.json --noCheck --outDir "$workdir/dist"
cp -R bin "$workdir/bin"
cp examples/policy.yml "$workdir/policy.yml"

failed=0
if [ "$count" -gt "$MAX_PACKAGES" ]; then
  echo "production install: $count packages is over the limit of $MAX_PACKAGES" >&2
  failed=1
fi
if awk -v b="$bytes" -v max="$MAX_MB" 'BEGIN { exit !(b > max * 1000000) }'; then
  echo "production install: $mb MB is over the limit of $MAX_MB MB" >&2
  failed=1
fi
if [ -e "$workdir/node_modules/@google/adk" ] || printf '%s\n' "$packages" | grep -q '/@google/adk$'; then
  echo 'production install: @google/adk is in it; the app never runs the ADK SDK (keep it a dev or optional peer dependency)' >&2
  failed=1
fi
if [ -e "$workdir/node_modules/tsx" ] || [ -e "$workdir/node_modules/typescript" ]; then
  echo 'production install: tsx or TypeScript is in it; a deployment runs the built dist/' >&2
  failed=1
fi
if ! checked="$(cd "$workdir" && node bin/adk-slack-approvals.js policy check policy.yml 2>&1)"; then
  printf 'production install: adk-slack-approvals policy check failed on the built dist/:\n%s\n' "$checked" >&2
  failed=1
else
  echo "production install: adk-slack-approvals runs from dist/: $(printf '%s\n' "$checked" | tail -1)"
fi
exit "$failed"
