import { LIMITS } from '@adk-slack-approvals/block-kit';
import type { RunError } from '../../approvals/outcomes.js';
import type { PauseView } from '../../approvals/records.js';
import { type KnownBlock, mrkdwn, type SlackMessage } from '../codecs/block-kit.js';
import {
  codeBlock,
  codePoints,
  cutNote,
  escapeLine,
  escapeMrkdwn,
  escapeWithin,
  fitEscaped,
  inlineCode,
} from '../codecs/escape.js';
import { channelMention, permalinkTo, userMention } from '../codecs/mentions.js';
import { actor, decisionText, listWithin, stateBadge, toolName } from './gate-lines.js';
import { referenceOf } from './notices.js';
import { type Asking, askingEmoji, mayVerb, neededHeading } from './request-words.js';

/**
 * The messages of a run's thread: who asked what, the agent's reply, which tools ran, what went
 * wrong, and where the approval card is. Everything from the agent
 * or a user is escaped; the `text` fallbacks mention nobody.
 */

const PROMPT_MAX = 2_500;
/** Text per reply section, under Slack's 3,000 with room for a re-opened code fence. */
const REPLY_SECTION_MAX = 2_900;
/** Text of a whole reply, under Slack's cumulative ~12,000. */
const REPLY_MAX = LIMITS.messageBlocksText - 1_000;
const FALLBACK_MAX = 200;
const ERROR_MAX = 1_000;

function section(text: string): KnownBlock {
  return { type: 'section', text: mrkdwn(text) };
}

function context(text: string): KnownBlock {
  return { type: 'context', elements: [mrkdwn(text)] };
}

export interface ThreadRootInput {
  /** Who started the run. */
  userId: string;
  appName: string;
  prompt: string;
  /** No app was named, so the default ran: said, so that a typo in an app name shows. */
  defaulted?: boolean;
  /** Not a person's `/agent`: the alert, webhook or API client that started it (issue 36). */
  startedBy?: { kind: 'alert' | 'webhook' | 'api'; id: string; name?: string };
}

const STARTER_WORD = { alert: 'alert', webhook: 'webhook', api: 'API client' } as const;

/** "Started by alert *HighErrorRate* · *ops*": what started a run no person typed. */
function starterLine(startedBy: NonNullable<ThreadRootInput['startedBy']>, app: string): string {
  const who = escapeLine(startedBy.name ?? startedBy.id, 120);
  return `Started by ${STARTER_WORD[startedBy.kind]} *${who}* · *${app}* app:`;
}

/**
 * "<@U1> asked *ops*: restart payments-api", and once the run moves, where it stands (`status`:
 * the line from `runStatusBlock`).
 */
export function renderThreadRoot(input: ThreadRootInput, status?: KnownBlock): SlackMessage {
  const { userId, appName, prompt, defaulted, startedBy } = input;
  const app = escapeLine(appName, 80);
  const asked = prompt.trim() === '' ? '_(no prompt)_' : escapeWithin(prompt.trim(), PROMPT_MAX);
  const who =
    startedBy === undefined
      ? `${userMention(userId)} asked *${app}*:`
      : starterLine(startedBy, app);
  const blocks = [section(`${who}\n${asked}`)];
  if (defaulted) {
    blocks.push(
      context(`Default agent *${app}* (no app named first) · another: \`/agent <app> <prompt>\``),
    );
  }
  if (status !== undefined) blocks.push(status);
  return { text: `Agent run (${app}): ${escapeLine(prompt, FALLBACK_MAX)}`, blocks };
}

/**
 * Common Markdown the models write, in Slack's mrkdwn: `**bold**` → `*bold*`, headings → bold
 * lines, `[text](url)` → `text (url)` (no live links: the label could disguise the target),
 * code fence languages dropped, bullets as `•`.
 */
export function markdownToMrkdwn(markdown: string): string {
  return markdown
    .replace(/\r\n?/g, '\n')
    .replace(/^```[\w+-]+[ \t]*$/gm, '```')
    .replace(/^#{1,6}[ \t]+(.+?)[ \t]*#*$/gm, '*$1*')
    .replace(/\*\*(?=\S)(.+?)(?<=\S)\*\*/g, '*$1*')
    .replace(/~~(?=\S)(.+?)(?<=\S)~~/g, '~$1~')
    .replace(/\[([^\]\n]+)\]\(([^)\s]+)\)/g, '$1 ($2)')
    .replace(/^([ \t]*)[-*+][ \t]+/gm, '$1• ');
}

/** Splits mrkdwn source into escaped pieces of at most `max`, preferring line breaks. */
function splitEscaped(
  raw: string,
  max: number,
  budget: number,
): { pieces: string[]; consumed: number } {
  const pieces: string[] = [];
  let rest = raw;
  let used = 0;
  while (rest.length > 0) {
    const room = Math.min(max, budget - used);
    if (room <= 0) break;
    const fitted = fitEscaped(rest, room);
    let take = fitted.consumed;
    if (fitted.cut) {
      const lineEnd = rest.lastIndexOf('\n', take - 1);
      if (lineEnd > take / 2) take = lineEnd + 1;
    }
    if (take === 0) break;
    const piece = escapeMrkdwn(rest.slice(0, take));
    // Slack refuses a section of only whitespace; there is nothing to show in one anyway.
    if (piece.trim() === '') {
      rest = rest.slice(take);
      continue;
    }
    pieces.push(piece);
    used += piece.length;
    rest = rest.slice(take);
  }
  return { pieces, consumed: raw.length - rest.length };
}

/** A code fence left open at the end of a section is closed there and re-opened in the next. */
function balanceFences(pieces: string[]): string[] {
  let open = false;
  return pieces.map((piece) => {
    const start = open ? '```\n' : '';
    const fences = piece.match(/```/g)?.length ?? 0;
    open = (fences + (open ? 1 : 0)) % 2 === 1;
    return `${start}${piece}${open ? '\n```' : ''}`;
  });
}

/**
 * The agent's answer. Agent output is untrusted: escaped, then kept readable (see
 * `markdownToMrkdwn`); a long answer takes several sections, and beyond what one message holds
 * it is cut with a note saying how much was shown.
 */
export function renderAgentReply({ text }: { text: string }): SlackMessage {
  const source = markdownToMrkdwn(text).trim();
  if (source === '') {
    return {
      text: 'The agent finished without a reply.',
      blocks: [context(':speech_balloon: The agent finished without a reply.')],
    };
  }
  const note = cutNote(source.length, source.length);
  const { pieces, consumed } = splitEscaped(
    source,
    REPLY_SECTION_MAX - 8,
    REPLY_MAX - note.length - 8,
  );
  const blocks = balanceFences(pieces).map(section);
  if (consumed < source.length) {
    blocks.push(context(cutNote(codePoints(source.slice(0, consumed)), codePoints(source))));
  }
  return { text: escapeLine(source, FALLBACK_MAX), blocks };
}

export interface ToolRun {
  name: string;
  ok: boolean;
}

/** "ran `lookup_service` ✓, `check_status` ✗ error" */
export function renderToolSummary(runs: readonly ToolRun[]): SlackMessage {
  const items = runs.map(({ name, ok }) => `${inlineCode(name, 60)} ${ok ? '✓' : '✗ error'}`);
  const failed = runs.filter(({ ok }) => !ok).length;
  const line = runs.length === 0 ? 'ran no tools' : `ran ${listWithin(items, 2_800)}`;
  return {
    text: `Ran ${runs.length} tool${runs.length === 1 ? '' : 's'}${failed > 0 ? `, ${failed} failed` : ''}`,
    blocks: [context(line)],
  };
}

function runErrorLine(error: RunError): string {
  switch (error.kind) {
    case 'unreachable':
      return ':warning: Could not reach the agent server.';
    case 'http': {
      const message = error.message?.trim();
      return `:warning: The agent server answered with HTTP ${Math.trunc(error.status)}${message ? `:\n${codeBlock(message, ERROR_MAX)}` : '.'}`;
    }
    case 'error_frame': {
      const message = error.message.trim();
      return `:warning: The agent stopped with an error${message ? `:\n${codeBlock(message, ERROR_MAX)}` : '.'}`;
    }
    case 'not_applied':
      return `:no_entry: The agent refused the decision (${inlineCode(error.reason, 80)}): the tool did not run.`;
    case 'timeout':
      return ':hourglass: The agent took too long, and the run was stopped.';
    case 'unreadable':
      return `:warning: The agent server sent something this app cannot read:\n${codeBlock(error.message, ERROR_MAX)}`;
    case 'ended_early':
      return ':warning: The agent stopped before its final answer, without saying why: the run most likely failed on the agent server (its log says why).';
  }
}

/** `reference`: the correlation id of the run, to find its log lines. */
export function renderRunError(error: RunError, reference?: string): SlackMessage {
  return messageOf(`${runErrorLine(error)}${referenceOf(reference)}`);
}

/**
 * The decisions are recorded but could not be delivered to the agent: said in the thread, next
 * to the Retry button on the card.
 */
export function renderResumeFailed(error: RunError, reference?: string): SlackMessage {
  return messageOf(
    `${runErrorLine(error)}\nThe decisions are kept, but the agent has not received them yet. Press *Retry* on the card to send them again.${referenceOf(reference)}`,
  );
}

/**
 * The agent holds the decisions (its session has them) and did not act on them: ADK refused them,
 * or its run failed right after storing them. No Retry: sending them again cannot help.
 * `error`: the failure seen now; absent when an earlier attempt's failure is all there is.
 */
export function renderResumeRefused(error: RunError | undefined, reference?: string): SlackMessage {
  const line =
    error === undefined
      ? ':no_entry: The agent received the decisions but did not act on them: nothing ran.'
      : error.kind === 'not_applied'
        ? runErrorLine(error)
        : `${runErrorLine(error)}\nThe agent received the decisions before it failed, and nothing ran.`;
  return messageOf(
    `${line}\nThe agent keeps the answers, so sending them again cannot help: run the agent again if the action is still needed.${referenceOf(reference)}`,
  );
}

/**
 * The re-check before the resume refused an approval: nothing was sent, the call waits for a new
 * decision on its card. `why` is the app's own words (escaped all the same).
 */
export function renderSentBack(voter: string, tools: readonly string[], why: string): SlackMessage {
  const calls = tools.map((tool) => inlineCode(tool, 60)).join(', ');
  return messageOf(
    `:leftwards_arrow_with_hook: ${actor(voter)}’s approval of ${calls} no longer holds (${escapeWithin(why, ERROR_MAX)}): nothing was sent to the agent. It waits for a new decision on its card.`,
  );
}

/** An approval taken back in its undo window: nothing ran, the call waits for a new decision. */
export function renderUndone(by: string, tools: readonly string[]): SlackMessage {
  const calls = tools.map((tool) => inlineCode(tool, 60)).join(', ');
  return messageOf(
    `:leftwards_arrow_with_hook: ${userMention(by)} undid the approval of ${calls} before it ran: nothing was sent to the agent. It waits for a new decision on its card.`,
  );
}

/** Something in the agent's stream this app could not use; the run goes on. */
export function renderStreamWarning(problem: string): SlackMessage {
  return messageOf(`:warning: ${escapeWithin(problem, ERROR_MAX)}`);
}

function messageOf(line: string): SlackMessage {
  const first = line.split('\n')[0] ?? line;
  return { text: first.replace(/^:\w+: /, ''), blocks: [section(line)] };
}

export interface CardElsewhereInput {
  channelId: string;
  /** From `chat.getPermalink`; linked only when it is a plain https URL. */
  permalink?: string;
  /** What the card asks of people; default approval. */
  asking?: Asking;
}

/** In the run's thread, when the policy posted the card in another channel. */
export function renderCardElsewhere({
  channelId,
  permalink,
  asking = 'approval',
}: CardElsewhereInput): SlackMessage {
  const channel = channelMention(channelId) ?? 'another channel';
  const linked = permalinkTo(permalink, 'Open the request');
  const link = linked === undefined ? '' : ` ${linked}`;
  const heading = neededHeading(asking);
  const who = asking === 'approval' ? 'its approvers' : `those who may ${mayVerb(asking)}`;
  return {
    text: `${heading}: the request was posted for ${who} in another channel.`,
    blocks: [
      section(
        `${askingEmoji(asking)} ${heading}: the request was posted in ${channel} for ${who}.${link}`,
      ),
    ],
  };
}

/** In the run's thread: the request was withdrawn, by whom, and why (escaped) if they said. */
export function renderWithdrawnNote(
  by: string,
  reason: string | undefined,
  agentTold = true,
): SlackMessage {
  const why = reason?.trim() ? `\nReason: ${escapeWithin(reason.trim(), 1_000)}` : '';
  const then = agentTold ? 'the agent is told' : 'the run stops here';
  return {
    text: `The request was withdrawn: ${then}.`,
    blocks: [
      section(
        `:leftwards_arrow_with_hook: ${userMention(by)} withdrew the request; ${then}.${why}`,
      ),
    ],
  };
}

/**
 * In the run's thread, when its card lives in another channel: how each call was decided, by
 * whom and why, once every call is decided (the card itself is where the votes happen). Nothing
 * for a card in the run's own thread, nor when the request was withdrawn: nobody decided, and
 * the withdrawal's own note said so.
 */
export function renderDecisionsElsewhere({ pause, gates }: PauseView): SlackMessage | undefined {
  if (pause.runThread === undefined) return undefined;
  if (gates.length > 0 && gates.every((gate) => gate.state === 'withdrawn')) return undefined;
  const channel = channelMention(pause.card.channelId) ?? 'another channel';
  const lines = gates.slice(0, 20).map((gate) => {
    const how = decisionText(gate, 400) ?? stateBadge(gate);
    return `${toolName(gate, 60)} · ${stateBadge(gate)}\n${how}`;
  });
  if (gates.length > 20) lines.push(`and ${gates.length - 20} more, on the card`);
  return {
    text: 'The approvers decided: the agent resumes.',
    blocks: [
      section(`:ballot_box_with_check: Decided in ${channel}; the agent resumes.`),
      ...lines.map((line) => context(line)),
    ],
  };
}

/** How far a run got before the replica running it died (see `renderRunDied`). */
export type RunDeath =
  /** Before the run's thread existed: told privately, naming what was asked. */
  | { stage: 'before_thread'; text: string }
  /** Before the agent started: nothing ran. */
  | { stage: 'before_agent' }
  /** While the agent worked; `pauses`: how many requests for approval were found and shown. */
  | { stage: 'while_agent'; pauses: number };

/** What the requester is told when the replica running their run died (issue 11). */
export function renderRunDied(death: RunDeath): SlackMessage {
  switch (death.stage) {
    case 'before_thread':
      return messageOf(
        `:warning: The app restarted before your run “${escapeWithin(death.text, PROMPT_MAX)}” could start. Nothing was run or approved; run it again.`,
      );
    case 'before_agent':
      return messageOf(
        ':warning: The app restarted before the agent started. Nothing was run or approved; run it again.',
      );
    case 'while_agent':
      return messageOf(
        death.pauses > 0
          ? ':warning: The app restarted while the agent was working. Its request for approval is in this thread; nothing was approved yet.'
          : ':warning: The app restarted while the agent was working, and the run stopped there. Nothing was approved; what the agent did before is above. Run it again if it did not finish.',
      );
  }
}
