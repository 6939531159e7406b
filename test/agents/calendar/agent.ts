import { type AuthConfig, AuthCredentialTypes, FunctionTool, LlmAgent } from '@google/adk';
import { z } from 'zod';
import { ScriptedLlm } from '../scripted-model/scripted-llm.js';

/**
 * App `calendar`: `calendar <day>` → `read_calendar({day})`, which needs an API key it asks the
 * user for (`adk_request_credential`) and answers a placeholder until it has one.
 */

const AUTH_CONFIG: AuthConfig = {
  authScheme: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
  rawAuthCredential: { authType: AuthCredentialTypes.API_KEY },
  credentialKey: 'calendar_api_key',
};

const readCalendar = new FunctionTool({
  name: 'read_calendar',
  description: "Read the user's calendar for a day.",
  parameters: z.object({ day: z.string() }),
  execute: async ({ day }, context) => {
    if (!context) throw new Error('read_calendar needs a tool context');
    const credential = context.getAuthResponse(AUTH_CONFIG);
    if (!credential) {
      context.requestCredential(AUTH_CONFIG);
      return { status: 'Waiting for the user to provide an API key.' };
    }
    return { day, events: ['standup 09:30'] };
  },
});

export const rootAgent = new LlmAgent({
  name: 'calendar',
  description: 'Reads a calendar with an API key.',
  instruction: 'Use the tool to do what the user asks.',
  model: new ScriptedLlm([
    {
      pattern: /\bcalendar (\w+)/gi,
      toCall: (match) => ({ name: 'read_calendar', args: { day: String(match[1]) } }),
    },
  ]),
  tools: [readCalendar],
});
