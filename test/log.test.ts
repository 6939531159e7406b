import { LogLevel } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { withCorrelation } from '../src/correlation.js';
import { createLog } from '../src/log.js';

function capture(level: 'debug' | 'info' | 'warn' | 'error') {
  const lines: string[] = [];
  const log = createLog(level, 'app', (line) => lines.push(line));
  return { log, lines };
}

describe('LineLogger', () => {
  it('writes the level, component, message and quoted fields on one line', () => {
    const { log, lines } = capture('info');
    log.child('store').info('gate decided', { pauseId: 'p1', by: 'U1', note: 'two words' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^\S+Z INFO {2}\[app:store\] gate decided pauseId=p1 by=U1 note="two words"$/,
    );
  });

  it('drops entries below the level, and keeps its level when a library calls setLevel', () => {
    const { log, lines } = capture('info');
    const child = log.child('x');
    log.debug('hidden');
    child.setLevel(LogLevel.DEBUG);
    log.debug('still hidden');
    child.info('shown');
    expect(lines.map((l) => l.split('] ')[1])).toEqual(['shown']);
    expect(child.getLevel()).toBe(LogLevel.INFO);
  });

  it('formats Bolt-style variadic arguments like console.log', () => {
    const { log, lines } = capture('debug');
    log.warn('retrying', 3, 'times');
    expect(lines[0]).toContain('[app] retrying 3 times');
  });

  it('in json format writes one parsable object per line with the fields as keys', () => {
    const lines: string[] = [];
    const log = createLog('info', 'app', (line) => lines.push(line), 'json');
    log.child('store').info('gate decided', { pauseId: 'p1', quorum: 2, note: 'a "quoted"\nline' });
    log.warn('retrying', 3, 'times');
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      {
        time: expect.stringMatching(/Z$/),
        level: 'info',
        logger: 'app:store',
        msg: 'gate decided',
        pauseId: 'p1',
        quorum: 2,
        note: 'a "quoted"\nline',
      },
      { time: expect.any(String), level: 'warn', logger: 'app', msg: 'retrying 3 times' },
    ]);
  });

  it('adds the correlation id of the work in hand, in both formats', async () => {
    const json: string[] = [];
    const text: string[] = [];
    const jsonLog = createLog('info', 'app', (line) => json.push(line), 'json');
    const textLog = createLog('info', 'app', (line) => text.push(line));
    await withCorrelation('0badc0de', async () => {
      await Promise.resolve();
      jsonLog.info('inside');
      textLog.info('inside');
    });
    jsonLog.info('outside');
    expect(json.map((line) => JSON.parse(line).correlationId)).toEqual(['0badc0de', undefined]);
    expect(text[0]).toMatch(/inside ref=0badc0de$/);
  });
});
