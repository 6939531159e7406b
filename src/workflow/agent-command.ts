/**
 * `/agent [app] <prompt>`: the app is the first word when it names an ADK app, else the default
 * app (ADK_APP, or the only app the server has).
 */
export type AgentCommand =
  | { kind: 'help' }
  /** `defaulted`: the first word names no app, so the default app runs. */
  | { kind: 'run'; app: string; prompt: string; defaulted?: true }
  | { kind: 'invalid'; problem: string };

export function parseAgentCommand(
  text: string,
  apps: readonly string[],
  defaultApp: string | undefined,
): AgentCommand {
  const trimmed = text.trim();
  if (trimmed === '' || /^(help|-h|--help|\?)$/i.test(trimmed)) return { kind: 'help' };

  const [first = '', ...rest] = trimmed.split(/\s+/);
  if (apps.includes(first)) {
    const prompt = trimmed.slice(first.length).trim();
    if (rest.length === 0 || prompt === '') {
      return {
        kind: 'invalid',
        problem: `Tell ${first} what to do: \`/agent ${first} <prompt>\`.`,
      };
    }
    return { kind: 'run', app: first, prompt };
  }
  const fallback = defaultApp ?? (apps.length === 1 ? apps[0] : undefined);
  if (fallback === undefined) {
    return {
      kind: 'invalid',
      problem:
        apps.length === 0
          ? 'The ADK server has no apps to run.'
          : `Start with the app to run: \`/agent <app> <prompt>\`. Apps: ${apps.join(', ')}.`,
    };
  }
  return { kind: 'run', app: fallback, prompt: trimmed, defaulted: true };
}

export function agentCommandHelp(apps: readonly string[], defaultApp: string | undefined): string {
  const lines = [
    '*Run an agent:* `/agent [app] <what it should do>`',
    '• `/agent ops restart payments-api` runs the `ops` app with that prompt.',
    defaultApp
      ? `• Without an app name, \`${defaultApp}\` runs.`
      : '• Name the app first unless the server has only one.',
    '• The run gets its own thread: answers land there, and risky actions wait for approval as cards.',
    apps.length > 0
      ? `*Apps:* ${apps.map((app) => `\`${app}\``).join(', ')}`
      : '*Apps:* none found',
  ];
  return lines.join('\n');
}
