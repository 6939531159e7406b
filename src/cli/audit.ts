import { runAuditCommand } from './commands.js';

/**
 * `node dist/cli/audit.js export|verify …` in a built image; the same as
 * `adk-slack-approvals audit …`. Exit 0: fine; 1: broken; 2: usage, or no store to export from.
 */
process.exitCode = await runAuditCommand(process.argv.slice(2));
