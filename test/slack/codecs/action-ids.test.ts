import { describe, expect, it } from 'vitest';
import {
  encodeButtonValue,
  encodeGateChoice,
  fitsGateChoice,
  parseButtonValue,
  parseGateChoice,
} from '../../../src/slack/codecs/action-ids.js';
import {
  parseEditMetadata,
  parseRejectMetadata,
} from '../../../src/slack/codecs/modal-metadata.js';

describe('values on buttons and menus', () => {
  it('round-trips a button value and nothing but the ids', () => {
    const value = encodeButtonValue({ pauseId: 'p1', callId: 'adk-1' });
    expect(value).toBe('{"pauseId":"p1","callId":"adk-1"}');
    expect(parseButtonValue(value)).toEqual({ pauseId: 'p1', callId: 'adk-1' });
    expect(parseButtonValue(encodeButtonValue({ pauseId: 'p1' }))).toEqual({ pauseId: 'p1' });
  });

  it('refuses values this app did not write', () => {
    for (const value of [
      undefined,
      42,
      '',
      'not json',
      '{"pauseId":""}',
      '{"pauseId":"p1","args":{"amount":1}}',
      '["p1"]',
    ]) {
      expect(parseButtonValue(value)).toBeUndefined();
    }
  });

  it('names a gate by its index in menu options, short enough for Slack', () => {
    const choice = {
      pauseId: 'pu8gYZOzGOfQ0lp7awtJIo',
      gateIndex: 49,
      decision: 'approve' as const,
    };
    const value = encodeGateChoice(choice);
    expect(value.length).toBeLessThanOrEqual(75);
    expect(parseGateChoice(value)).toEqual(choice);
    expect(parseGateChoice('{"p":"p1","i":-1,"a":"approve"}')).toBeUndefined();
    expect(parseGateChoice('{"p":"p1","i":1,"a":"delete"}')).toBeUndefined();
    expect(fitsGateChoice('p'.repeat(60), 50)).toBe(false);
  });
});

describe('modal private_metadata', () => {
  it('parses only the shapes the modals write', () => {
    expect(parseEditMetadata('{"pauseId":"p1","callId":"c1","channelId":"C1"}')).toEqual({
      pauseId: 'p1',
      callId: 'c1',
      channelId: 'C1',
    });
    expect(parseEditMetadata('{"pauseId":"p1"}')).toBeUndefined();
    expect(parseRejectMetadata('{"pauseId":"p1","callIds":[]}')).toBeUndefined();
    expect(parseRejectMetadata('{"pauseId":"p1"}')).toEqual({ pauseId: 'p1' });
  });
});
