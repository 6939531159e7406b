import { LogLevel } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
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
});
