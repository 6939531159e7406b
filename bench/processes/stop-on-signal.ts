/**
 * Runs `stop` once, then exits: on SIGTERM (the benchmark's orderly stop) or when the IPC channel
 * closes (the benchmark died), so that no child outlives the run.
 */
export function stopOnSignal(stop: () => Promise<void>): void {
  let stopping = false;
  const once = () => {
    if (stopping) return;
    stopping = true;
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`stop failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', once);
  process.on('SIGINT', once);
  process.on('disconnect', once);
}
