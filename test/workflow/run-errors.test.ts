import { describe, expect, it } from 'vitest';
import { AdkError } from '../../src/adk/errors.js';
import { runErrorOf } from '../../src/workflow/run-errors.js';

describe('runErrorOf', () => {
  it('says what the person can act on for each kind of ADK failure', () => {
    expect(runErrorOf(new AdkError('network', 'refused'))).toEqual({ kind: 'unreachable' });
    expect(runErrorOf(new AdkError('timeout', 'run over 300000 ms'))).toEqual({ kind: 'timeout' });
    expect(
      runErrorOf(new AdkError('http', 'x', { status: 404, serverMessage: 'Session not found: s' })),
    ).toEqual({ kind: 'http', status: 404, message: 'Session not found: s' });
    expect(
      runErrorOf(
        new AdkError('stream_error', 'x', {
          serverMessage:
            "Tool confirmation rejected for function call 'adk-1': confirmation_not_required.",
          intentMismatch: { callId: 'adk-1', reason: 'confirmation_not_required' },
        }),
      ),
    ).toEqual({ kind: 'not_applied', reason: 'confirmation_not_required' });
    expect(runErrorOf(new AdkError('stream_error', 'x', { serverMessage: 'boom' }))).toEqual({
      kind: 'error_frame',
      message: 'boom',
    });
    expect(runErrorOf(new AdkError('ended_early', 'no final event'))).toEqual({
      kind: 'ended_early',
    });
    expect(runErrorOf(new AdkError('protocol', 'not JSON'))).toEqual({
      kind: 'unreadable',
      message: 'not JSON',
    });
  });
});
