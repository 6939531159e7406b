import { type Json, type JsonObject, parseJson } from '../json.js';

/**
 * Web API arguments arrive form-encoded (what `@slack/web-api` sends: every value a string,
 * nested objects as JSON strings) or as a JSON body (values keep their JSON types). These read
 * one argument either way.
 */
export type Arguments = JsonObject;

export function stringArg(args: Arguments, name: string): string | undefined {
  const value = args[name];
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

export function booleanArg(args: Arguments, name: string): boolean {
  const value = args[name];
  return value === true || value === 'true' || value === '1' || value === 1;
}

export function numberArg(args: Arguments, name: string): number | undefined {
  const value = stringArg(args, name);
  if (value === undefined || !/^\d+$/.test(value)) return undefined;
  return Number(value);
}

export type JsonArgument =
  | { kind: 'absent' }
  | { kind: 'invalid' }
  | { kind: 'present'; value: Json };

/** An argument that carries JSON (`blocks`, `view`, `metadata`): a JSON string or, in JSON bodies, the value itself. */
export function jsonArg(args: Arguments, name: string): JsonArgument {
  const value = args[name];
  if (value === undefined || value === null || value === '') return { kind: 'absent' };
  if (typeof value !== 'string') return { kind: 'present', value };
  const parsed = parseJson(value);
  return parsed.ok ? { kind: 'present', value: parsed.value } : { kind: 'invalid' };
}

const JSON_ARGUMENTS = ['blocks', 'view', 'attachments', 'metadata'];

/** The arguments as the call log shows them: JSON strings parsed, the token left out. */
export function loggedArguments(args: Arguments): JsonObject {
  const logged: JsonObject = {};
  for (const [name, value] of Object.entries(args)) {
    if (name === 'token') continue;
    const json = JSON_ARGUMENTS.includes(name) ? jsonArg(args, name) : undefined;
    logged[name] = json?.kind === 'present' ? json.value : value;
  }
  return logged;
}
