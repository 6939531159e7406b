import { describe, expect, it } from 'vitest';
import { unescapeSlackText } from '../../src/workflow/agent-runs.js';

describe('unescapeSlackText', () => {
  it('gives the agent the characters the person typed', () => {
    expect(unescapeSlackText('restart a&amp;b &lt;now&gt; &amp;lt;')).toBe(
      'restart a&b <now> &lt;',
    );
  });
});
