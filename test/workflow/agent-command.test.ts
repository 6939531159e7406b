import { describe, expect, it } from 'vitest';
import { agentCommandHelp, parseAgentCommand } from '../../src/workflow/agent-command.js';

const apps = ['ops', 'payments'];

describe('parseAgentCommand', () => {
  it('takes the first word as the app when it names one', () => {
    expect(parseAgentCommand('ops  restart payments-api ', apps, undefined)).toEqual({
      kind: 'run',
      app: 'ops',
      prompt: 'restart payments-api',
    });
  });

  it('runs the default app with the whole text when the first word names no app, and says so', () => {
    expect(parseAgentCommand('nosuchapp restart payments-api', apps, 'ops')).toEqual({
      kind: 'run',
      app: 'ops',
      prompt: 'nosuchapp restart payments-api',
      defaulted: true,
    });
  });

  it('runs the only app when there is no default', () => {
    expect(parseAgentCommand('restart it', ['ops'], undefined)).toMatchObject({ app: 'ops' });
  });

  it('asks for an app when several exist and none is named or default', () => {
    const command = parseAgentCommand('restart it', apps, undefined);
    expect(command.kind).toBe('invalid');
    expect(command.kind === 'invalid' && command.problem).toContain('Apps: ops, payments');
  });

  it('asks for a prompt after a bare app name', () => {
    expect(parseAgentCommand('ops', apps, undefined)).toEqual({
      kind: 'invalid',
      problem: 'Tell ops what to do: `/agent ops <prompt>`.',
    });
  });

  it('treats an empty command and "help" as a request for help', () => {
    expect(parseAgentCommand('  ', apps, 'ops')).toEqual({ kind: 'help' });
    expect(parseAgentCommand('HELP', apps, 'ops')).toEqual({ kind: 'help' });
  });

  it('help lists the apps and the default', () => {
    const help = agentCommandHelp(apps, 'ops');
    expect(help).toContain('`ops`, `payments`');
    expect(help).toContain('Without an app name, `ops` runs.');
  });
});
