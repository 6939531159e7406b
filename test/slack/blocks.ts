import { checkMessage, checkView } from '@adk-slack-approvals/block-kit';
import { expect } from 'vitest';
import type { PauseView } from '../../src/approvals/records.js';
import {
  ACTION_IDS,
  parseButtonValue,
  parseGateChoice,
} from '../../src/slack/codecs/action-ids.js';

/** Walking rendered Block Kit in tests: its texts, its buttons, its menu options. */

type Json = unknown;

function isRecord(value: Json): value is Record<string, Json> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function walk(value: Json, visit: (node: Record<string, Json>) => void): void {
  if (Array.isArray(value)) for (const item of value) walk(item, visit);
  else if (isRecord(value)) {
    visit(value);
    for (const child of Object.values(value)) walk(child, visit);
  }
}

/** Every text object's text, in order. */
export function texts(blocks: Json): string[] {
  const found: string[] = [];
  walk(blocks, (node) => {
    if ((node.type === 'mrkdwn' || node.type === 'plain_text') && typeof node.text === 'string') {
      found.push(node.text);
    }
  });
  return found;
}

export function allText(blocks: Json): string {
  return texts(blocks).join('\n');
}

export interface FoundButton {
  actionId: string;
  label: string;
  value: string | undefined;
  style: string | undefined;
}

export function buttons(blocks: Json): FoundButton[] {
  const found: FoundButton[] = [];
  walk(blocks, (node) => {
    if (node.type !== 'button') return;
    const text = isRecord(node.text) ? node.text.text : undefined;
    found.push({
      actionId: String(node.action_id),
      label: String(text),
      value: typeof node.value === 'string' ? node.value : undefined,
      style: typeof node.style === 'string' ? node.style : undefined,
    });
  });
  return found;
}

/** Values of options in overflow menus and selects. */
export function menuValues(blocks: Json): string[] {
  const found: string[] = [];
  walk(blocks, (node) => {
    if (node.type !== 'overflow' && node.type !== 'static_select') return;
    walk(node, (inner) => {
      if (typeof inner.value === 'string' && isRecord(inner.text)) found.push(inner.value);
    });
  });
  return found;
}

/** Slack markup the app writes on purpose: mentions of known ids, dates, its link, quotes. */
const OWN_MARKUP = [
  /<@[A-Z0-9]+>/g,
  /<!subteam\^[A-Z0-9]+>/g,
  /<#[A-Z0-9]+>/g,
  /<!date\^-?\d+\^\{date_short_pretty\} at \{time(?:_secs)?\}\|[0-9TZ:-]+>/g,
  /<https?:\/\/[^\s|<>]+\|(Open the request|open the run|Open card)>/g,
  /^> /gm,
];

/**
 * Characters that hide or reorder text: bidi controls and marks, tag characters (U+E0000–E007F).
 * The three emoji flags spelled with tags (England, Scotland, Wales) are taken out first.
 */
const TAG_FLAG =
  /\u{1F3F4}(?:\u{E0067}\u{E0062}(?:\u{E0065}\u{E006E}\u{E0067}|\u{E0073}\u{E0063}\u{E0074}|\u{E0077}\u{E006C}\u{E0073}))\u{E007F}/gu;
const HIDING = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u{E0000}-\u{E007F}]/u;

/** Fails when any text holds a `<` or `>` that is not the app's own markup, or hides text. */
export function expectInert(blocks: Json, fallback?: string): void {
  for (const text of [...texts(blocks), ...(fallback === undefined ? [] : [fallback])]) {
    const stripped = OWN_MARKUP.reduce((rest, pattern) => rest.replace(pattern, ''), text);
    expect(stripped, `live markup in: ${text.slice(0, 200)}`).not.toMatch(/[<>]/);
    expect(text.replace(TAG_FLAG, ''), `hiding characters in: ${text.slice(0, 200)}`).not.toMatch(
      HIDING,
    );
  }
  if (fallback !== undefined) expect(fallback).not.toMatch(/<[@!#]/);
}

export function expectValidMessage(message: { text: string; blocks?: Json }): void {
  expect(checkMessage(message)).toEqual([]);
}

export function expectValidView(view: Json): void {
  expect(checkView(view)).toEqual([]);
}

/** How each pending gate of the view can be decided from the card (empty: it cannot). */
export function decisionPaths(view: PauseView, blocks: Json): Map<string, string[]> {
  const paths = new Map<string, string[]>();
  for (const gate of view.gates) paths.set(gate.confirmationCallId, []);
  const add = (callId: string | undefined, how: string) => {
    if (callId !== undefined) paths.get(callId)?.push(how);
  };
  for (const button of buttons(blocks)) {
    const value = parseButtonValue(button.value);
    if (value?.pauseId !== view.pause.id) continue;
    if (button.actionId === ACTION_IDS.approve) add(value.callId, 'button');
    if (button.actionId === ACTION_IDS.approveAll) {
      for (const gate of view.gates) add(gate.confirmationCallId, 'approve all');
    }
  }
  for (const value of menuValues(blocks)) {
    const choice = parseGateChoice(value);
    if (choice?.pauseId !== view.pause.id || choice.decision !== 'approve') continue;
    add(view.pause.callIds[choice.gateIndex], 'menu');
  }
  return paths;
}
