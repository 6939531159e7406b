/**
 * Slack's Block Kit limits, checked locally (Slack itself answers `invalid_blocks`).
 * Each function returns Slack-style error strings, e.g.
 * `no more than 50 items allowed [json-pointer:/blocks]`; an empty list means valid.
 *
 * PLACEHOLDER: the real checks land with the Slack UI work (branch slack-ui).
 */
export function checkMessage(_message: { text?: unknown; blocks?: unknown }): string[] {
  return [];
}

export function checkView(_view: unknown): string[] {
  return [];
}
