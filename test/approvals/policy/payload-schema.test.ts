import { describe, expect, it } from 'vitest';
import {
  objectProblems,
  payloadProblem,
  payloadSchemaSchema,
} from '../../../src/approvals/policy/payload-schema.js';
import { parsePolicy } from '../../../src/approvals/policy.js';

const windowSchema = payloadSchemaSchema.parse({
  type: 'object',
  required: ['start', 'durationMinutes'],
  properties: {
    start: { type: 'string', format: 'date-time' },
    durationMinutes: { type: 'integer', minimum: 5, maximum: 480 },
    region: { type: 'string', enum: ['eu', 'us'] },
    ticket: { type: 'string', pattern: '^OPS-\\d+$' },
    services: { type: 'array', minItems: 1, items: { enum: ['web', 'ledger'] } },
  },
});

describe('a payload schema from a policy rule', () => {
  it('accepts a payload that keeps every rule', () => {
    const payload = {
      start: '2026-11-23T22:00:00Z',
      durationMinutes: 60,
      region: 'eu',
      ticket: 'OPS-12',
      services: ['web'],
    };
    expect(objectProblems(windowSchema, payload)).toEqual({});
  });

  it('names each broken rule on its property, in words for the form', () => {
    const payload = {
      start: 'tomorrow morning',
      durationMinutes: 1000,
      region: 'mars',
      ticket: 'JIRA-1',
      services: ['web', 'db'],
    };
    expect(objectProblems(windowSchema, payload)).toEqual({
      start: 'Enter a date and time such as 2026-11-23T22:00:00Z.',
      durationMinutes: 'Enter a number from 5 to 480.',
      region: 'Choose one of: eu, us.',
      ticket: 'Does not have the expected form (^OPS-\\d+$).',
      services: '"db": Choose one of: web, ledger.',
    });
  });

  it('refuses a missing or empty required property, and a whole number that is not whole', () => {
    expect(objectProblems(windowSchema, { start: '', durationMinutes: 7.5 })).toEqual({
      start: 'Required.',
      durationMinutes: 'Enter a whole number.',
    });
    expect(payloadProblem({ type: 'array', minItems: 1 }, [])).toBe('Choose at least one.');
  });

  it('is checked when the policy loads: an unknown keyword is an error, not an ignored check', () => {
    const result = parsePolicy(
      [
        'rules:',
        '  - match: { tool: transfer_money }',
        '    approvers: [U0BOB000001]',
        '    payloadSchema:',
        '      properties:',
        '        amount: { type: number, maximumm: 500 }',
      ].join('\n'),
      'policy.yml',
    );
    expect(result).toMatchObject({ ok: false });
    if (result.ok) return;
    expect(result.errors.join('\n')).toMatch(
      /rules\[0\]\.payloadSchema\.properties\.amount: unsupported keyword maximumm/,
    );
  });

  it('reaches the gate policy of its rule only, with confirm and the approvals channel', () => {
    const result = parsePolicy(
      [
        'approvalsChannel: C0APPROVALS',
        'defaults: { approvers: [U0BOB000001] }',
        'rules:',
        '  - match: { tool: transfer_money }',
        '    confirm: true',
        '    payloadSchema: { properties: { amount: { maximum: 500 } } }',
      ].join('\n'),
      'policy.yml',
    );
    if (!result.ok) throw new Error(result.errors.join('\n'));
    const { policy } = result;
    expect(policy.approvalsChannel).toBe('C0APPROVALS');
    expect(policy.rules[0]?.resolved.policy).toMatchObject({
      confirm: true,
      payloadSchema: { properties: { amount: { maximum: 500 } } },
    });
    expect(policy.defaults.policy.payloadSchema).toBeUndefined();
    expect(policy.defaults.policy.confirm).toBeUndefined();
  });
});
