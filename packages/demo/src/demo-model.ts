import { type BaseLlm, Gemini } from '@google/adk';
import { type DemoScript, ScriptedDemoModel } from './scripted-model.js';

/** The Gemini model the demo agents use when a key is set. */
export const DEMO_GEMINI_MODEL = 'gemini-2.5-flash';

/**
 * Gemini when `GOOGLE_API_KEY` is set, else the offline scripted model: the demo never calls the
 * network without a key. The agents run inside the ADK server process, whose environment the
 * app passes on, so they read it themselves.
 */
export function demoModel(
  script: DemoScript,
  env: Record<string, string | undefined> = process.env,
): BaseLlm {
  const apiKey = env.GOOGLE_API_KEY?.trim();
  if (!apiKey) return new ScriptedDemoModel(script);
  // Explicit, so that Vertex AI settings in the environment do not redirect the key.
  return new Gemini({ model: DEMO_GEMINI_MODEL, apiKey, vertexai: false });
}
