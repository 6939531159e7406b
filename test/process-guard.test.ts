import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createLog } from '../src/log.js';
import { guardAgainstUnhandledRejections } from '../src/process-guard.js';

describe('the process guard', () => {
  it('logs an unhandled rejection as an error, without the payload, and keeps the process', () => {
    const lines: string[] = [];
    const target = new EventEmitter();
    guardAgainstUnhandledRejections(
      target,
      createLog('info', 'app', (line) => lines.push(line)),
    );
    // Node ends the process on an unhandledRejection only when nothing listens to it.
    expect(target.listenerCount('unhandledRejection')).toBe(1);
    target.emit(
      'unhandledRejection',
      new TypeError("Cannot read properties of null (reading 'ssl_check')"),
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /ERROR \[app\] unhandled promise rejection; still serving error=.*ssl_check.* type=TypeError/,
    );
  });
});
