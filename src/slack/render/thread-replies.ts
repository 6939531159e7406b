import { API_ACTOR_PREFIX } from '../../approvals/deciders.js';
import type { SlackMessage } from '../codecs/block-kit.js';
import { inlineCode } from '../codecs/escape.js';
import { permalinkTo, userMention } from '../codecs/mentions.js';

/** What the app says back to a reply in a run's thread that it will not pass to the agent. */

/** A pause of the session waits for people: the agent cannot take another message yet. */
export function renderAnswerCardFirst(cardLink: string | undefined): SlackMessage {
  const card = permalinkTo(cardLink, 'the approval card') ?? 'the approval card';
  return {
    text: `The agent is waiting for a decision on ${card}. Your reply was not sent to it: answer the card first (or ask an approver to), then reply again.`,
  };
}

/** Decisions are in, and the agent is still being resumed with them. */
export function renderAgentBusy(): SlackMessage {
  return {
    text: 'The agent is still working on the decisions from the card. Your reply was not sent to it; reply again once it has answered.',
  };
}

/** Only the person who started a run speaks for it: the agent acts as them. */
export function renderNotYourRun(requester: string): SlackMessage {
  if (requester.startsWith(API_ACTOR_PREFIX)) {
    // A run started over the API or by an alert acts as its key: nobody speaks for it here.
    return {
      text: `This run was started over the approvals API (key ${inlineCode(requester.slice(API_ACTOR_PREFIX.length), 64)}), not by a person, so replies here do not reach its agent. Start a run of your own with \`/agent\`.`,
    };
  }
  return {
    text: `Only ${userMention(requester)}, who started this run, can continue it here. Start a run of your own with \`/agent\`.`,
  };
}

/** `@app` outside a run's thread. */
export function renderMentionHelp(): SlackMessage {
  return {
    text: 'Hi! Start a run with `/agent [app] <what it should do>`. It gets a thread of its own: reply in that thread to continue the conversation with the agent.',
  };
}
