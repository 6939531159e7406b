import { describe, expect, it } from 'vitest';
import { renderNotYourRun } from '../../../src/slack/render/thread-replies.js';

describe('renderNotYourRun', () => {
  it('names the person who started the run', () => {
    expect(renderNotYourRun('U0ALICE').text).toContain('Only <@U0ALICE>, who started this run');
  });

  it('says a run started over the API (or by an alert) has no person to continue it, naming the key escaped', () => {
    const { text } = renderNotYourRun('api:<alert>manager');
    expect(text).toContain('started over the approvals API (key `&lt;alert&gt;manager`)');
    expect(text).toContain('not by a person');
    expect(text).not.toContain('Only');
  });
});
