#!/usr/bin/env bash
# Runs the Redis store's tests and the app's end-to-end cluster test (approve → resume) against a
# throwaway 3-master Redis Cluster: starts it on free loopback ports (node configs in a temporary
# directory), waits for cluster_state:ok, runs the tests with REDIS_CLUSTER_NODES set, and tears
# everything down, also on failure or Ctrl-C.
# Needs redis-server and redis-cli (Redis 7). Extra arguments go to vitest.
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in redis-server redis-cli; do
  command -v "$tool" >/dev/null || { echo "cluster-test: $tool is not installed" >&2; exit 1; }
done

workdir="$(mktemp -d -t redis-cluster-XXXXXX)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$workdir"
}
trap cleanup EXIT INT TERM

# Three ports whose cluster bus port (port + 10000) is free too, both below the kernel's range of
# ephemeral ports (32768 and up), where an outgoing connection could take one before its node
# listens.
read -r -a ports <<<"$(node --input-type=module -e '
import net from "node:net";
const free = (port) => new Promise((resolve) => {
  const server = net.createServer().once("error", () => resolve(false));
  server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
});
const found = [];
while (found.length < 3) {
  const port = 20000 + Math.floor(Math.random() * 2700);
  if (!found.includes(port) && (await free(port)) && (await free(port + 10000))) found.push(port);
}
console.log(found.join(" "));
')"

for port in "${ports[@]}"; do
  redis-server --port "$port" --bind 127.0.0.1 --cluster-enabled yes \
    --cluster-config-file "nodes-$port.conf" --dir "$workdir" --save '' --appendonly no \
    --logfile "$workdir/redis-$port.log" &
  pids+=("$!")
done

for port in "${ports[@]}"; do
  for _ in $(seq 1 100); do
    redis-cli -p "$port" ping >/dev/null 2>&1 && break
    sleep 0.05
  done
done

nodes=()
for port in "${ports[@]}"; do nodes+=("127.0.0.1:$port"); done
redis-cli --cluster create "${nodes[@]}" --cluster-replicas 0 --cluster-yes >"$workdir/create.log"

for port in "${ports[@]}"; do
  for attempt in $(seq 1 200); do
    redis-cli -p "$port" cluster info | grep -q '^cluster_state:ok' && break
    if [ "$attempt" = 200 ]; then echo "cluster-test: node $port never reached cluster_state:ok" >&2; exit 1; fi
    sleep 0.05
  done
done

echo "Redis Cluster ready: ${nodes[*]}"
# No crash test here: the app's child processes need no compile (test/support/adk-server.global.ts).
TEST_CHILD_PROCESSES=none REDIS_CLUSTER_NODES="$(IFS=,; echo "${nodes[*]}")" npx vitest run \
  --project integration test/approvals/store/redis-store.integration.test.ts \
  test/approvals/store/redis-layout.integration.test.ts \
  test/approvals/store/run-threads.integration.test.ts test/approvals/store/audit-seal.integration.test.ts \
  test/approvals/store/sweeper.integration.test.ts test/approvals/store/seal-ahead.integration.test.ts \
  test/approvals/grant-store.integration.test.ts \
  test/approvals/store/expiry-batch.integration.test.ts \
  test/approvals/store/audit-stream-entries.integration.test.ts \
  test/approvals/store/mixed-versions.integration.test.ts \
  test/approvals/store/cluster-connection.integration.test.ts \
  test/e2e/redis-cluster.test.ts "$@"
