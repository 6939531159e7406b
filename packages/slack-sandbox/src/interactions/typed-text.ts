import { allChannels, allPeople, allUserGroups, BOT } from '../workspace.js';

/**
 * Text a person typed, as Slack stores messages and delivers slash commands with
 * `should_escape: true`: `&`, `<`, `>` escaped, and mentions, channels and links turned into
 * Slack's `<…>` references.
 */
export function encodeTypedText(text: string): string {
  return escapeControlCharacters(text)
    .replace(/(^|\s)@([a-z0-9][a-z0-9._-]*)/gi, (whole, lead: string, handle: string) => {
      const lower = handle.toLowerCase();
      if (lower === 'here' || lower === 'channel' || lower === 'everyone')
        return `${lead}<!${lower}>`;
      const person = allPeople().find((p) => p.name === lower);
      if (person) return `${lead}<@${person.id}|${person.name}>`;
      // The app's bot user, as Slack's client encodes a picked mention: the id alone.
      if (lower === BOT.name) return `${lead}<@${BOT.userId}>`;
      const group = allUserGroups().find((g) => g.handle === lower);
      if (group) return `${lead}<!subteam^${group.id}|@${group.handle}>`;
      return whole;
    })
    .replace(/(^|\s)#([a-z0-9][a-z0-9_-]*)/gi, (whole, lead: string, name: string) => {
      const channel = allChannels().find((c) => c.name === name.toLowerCase());
      return channel ? `${lead}<#${channel.id}|${channel.name}>` : whole;
    })
    .replace(
      /(^|\s)(https?:\/\/[^\s<>]+)/g,
      (_whole, lead: string, url: string) => `${lead}<${url}>`,
    );
}

/**
 * Slash command text with `should_escape: false` (the manifest default, and this app's
 * manifest.yml): `&`, `<`, `>` escaped as in all text Slack sends, mentions left as typed.
 */
export function escapeControlCharacters(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
