import { cpuQuerySchema, tellParent } from './messages.js';

/** Answers the benchmark's questions about this process's CPU time. */
export function answerCpuQueries(): void {
  process.on('message', (message: unknown) => {
    if (!cpuQuerySchema.safeParse(message).success) return;
    const { user, system } = process.cpuUsage();
    tellParent({ kind: 'cpu', micros: user + system });
  });
}
