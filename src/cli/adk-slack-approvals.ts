import { runAuditCommand, runPolicyCommand } from './commands.js';

/**
 * `adk-slack-approvals policy …` and `adk-slack-approvals audit …`: the package's command
 * (`bin/adk-slack-approvals.js` starts it), also what `npm run policy` and `npm run audit` run.
 */
const USAGE = [
  'usage: adk-slack-approvals policy check|explain|test …   the approver policy (docs/policy.md)',
  '       adk-slack-approvals audit export|verify …         the audit trail (docs/audit.md)',
].join('\n');

const [command, ...rest] = process.argv.slice(2);
if (command === 'policy') process.exitCode = await runPolicyCommand(rest);
else if (command === 'audit') process.exitCode = await runAuditCommand(rest);
else {
  process.stderr.write(`${USAGE}\n`);
  process.exitCode = 2;
}
