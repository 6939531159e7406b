import { describe, expect, it } from 'vitest';
import { fillTemplate, parseRunRequest } from '../../src/api/run-request.js';
import { MemoryStartedRuns, type StartedRunRecord } from '../../src/approvals/started-runs.js';
import { renderJoinedNote, renderRunNote } from '../../src/slack/render/run-notes.js';

function run(id: string, overrides: Partial<StartedRunRecord> = {}): StartedRunRecord {
  return {
    id,
    app: 'ops',
    channel: 'C0OPS',
    status: 'starting',
    startedBy: { kind: 'alert', id: 'fp' },
    source: 'alert',
    dedupeKey: 'group-1',
    keyId: 'runbooks',
    pauseIds: [],
    createdAt: 0,
    ...overrides,
  };
}

describe('MemoryStartedRuns (the in-process twin of the Redis runs)', () => {
  it('one dedupe key per key and app while the run is open; released when it ends', async () => {
    const runs = new MemoryStartedRuns();
    expect((await runs.begin(run('a'))).kind).toBe('begun');
    expect(await runs.begin(run('b'))).toMatchObject({ kind: 'held', run: { id: 'a' } });
    expect((await runs.begin(run('c', { keyId: 'other' }))).kind).toBe('begun');
    expect((await runs.begin(run('d', { app: 'payments' }))).kind).toBe('begun');
    await runs.update('a', { status: 'cancelled', endedAt: 1 });
    expect((await runs.begin(run('e'))).kind).toBe('begun');
  });

  it('an ended run stays as it ended', async () => {
    const runs = new MemoryStartedRuns();
    await runs.begin(run('a'));
    await runs.update('a', { status: 'stood_down', reason: 'alert resolved' });
    const after = await runs.update('a', { status: 'done' });
    expect(after).toMatchObject({ status: 'stood_down', reason: 'alert resolved' });
  });
});

describe('POST /v1/runs bodies', () => {
  it('fills {{name}} placeholders and names every missing variable', () => {
    expect(
      fillTemplate('restart {{ service }}: {{summary}}', { service: 'pay', summary: 'x' }),
    ).toEqual({ kind: 'filled', text: 'restart pay: x' });
    expect(fillTemplate('{{a}} {{b}} {{a}}', {})).toEqual({ kind: 'missing', names: ['a', 'b'] });
  });

  it('takes a prompt or a template, not both, and names unknown fields', () => {
    const base = { app: 'ops', channel: 'C0OPS', startedBy: { kind: 'api', id: 'ci' } };
    expect(parseRunRequest({ ...base, prompt: 'hi' }).kind).toBe('valid');
    const both = parseRunRequest({ ...base, prompt: 'hi', template: 'x' });
    expect(both).toMatchObject({
      kind: 'invalid',
      problems: ['prompt: expected prompt or template'],
    });
    const extra = parseRunRequest({ ...base, prompt: 'hi', colour: 'red' });
    expect(JSON.stringify(extra)).toContain('colour');
    const who = parseRunRequest({ ...base, prompt: 'hi', startedBy: { kind: 'pager', id: 'x' } });
    expect(JSON.stringify(who)).toContain('startedBy.kind');
  });
});

describe('run thread notes', () => {
  it('escape what they are given', () => {
    expect(JSON.stringify(renderRunNote('<!channel> & co'))).toContain('&lt;!channel&gt; &amp; co');
    const joined = JSON.stringify(renderJoinedNote({ kind: 'alert', id: 'x', name: '<@U1>' }));
    expect(joined).toContain('Joined: alert *&lt;@U1&gt;*');
    expect(joined).not.toContain('<@U1>');
  });
});
