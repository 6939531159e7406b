import { runAuditCommand, runPolicyCommand, runRunbooksCommand } from './commands.js';

/**
 * `adk-slack-approvals policy …`, `… audit …` and `… runbooks check`: the package's command
 * (`bin/adk-slack-approvals.js` starts it), also what `npm run policy` and `npm run audit` run.
 */
const USAGE = [
  'usage: adk-slack-approvals policy check|explain|test …   the approver policy (docs/policy.md)',
  '       adk-slack-approvals audit export|verify …         the audit trail (docs/audit.md)',
  '       adk-slack-approvals runbooks check <file>         the runbooks file (docs/runbooks.md)',
].join('\n');

const [command, ...rest] = process.argv.slice(2);
if (command === 'policy') process.exitCode = await runPolicyCommand(rest);
else if (command === 'audit') process.exitCode = await runAuditCommand(rest);
else if (command === 'runbooks') process.exitCode = await runRunbooksCommand(rest);
else {
  process.stderr.write(`${USAGE}\n`);
  process.exitCode = 2;
}
