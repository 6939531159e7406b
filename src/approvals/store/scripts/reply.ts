import { z } from 'zod';
import { StoreError } from '../../store.js';
import { type ScriptCodeName, scriptCodeName } from './codes.js';

/**
 * `{code, info, audit entries written, pause fields, gate fields, chain}`: what every per-pause
 * script returns; `chain` is `{}` or `{head, unsealed bodies}` (prelude.lua.ts). The entries
 * themselves come back only in `chain`, as the bodies Node seals.
 */
const pauseScriptReplySchema = z.tuple([
  z.number().int(),
  z.array(z.union([z.string(), z.number()])),
  z.number().int().min(0),
  z.array(z.string().nullable()),
  z.array(z.array(z.string().nullable())),
  z.union([
    z.tuple([]),
    z.tuple([z.string(), z.string()]),
    z.tuple([z.string(), z.string(), z.literal('1')]),
  ]),
]);

/** One audit entry a script wrote for the pause's chain, sealed; '' stands for "none". */
export interface ScriptAuditEntry {
  event: string;
  actor: string;
  callId: string;
  detail: string;
  /** The entry's line of the pause's hash chain (audit-chain.ts): its body until it is sealed. */
  line: string;
}

/** A pause's hash chain as a script left it: its head and the bodies still to seal. */
export interface ChainState {
  /** The hash of its last sealed line; '' before the first. */
  head: string;
  /** Bodies, one per line, oldest first; '' for none. */
  unsealed: string;
  /** The script appended the lines Node sealed ahead for it (prelude.lua.ts's offer_seal). */
  sealedAhead?: boolean;
}

export interface PauseScriptReply {
  code: ScriptCodeName;
  info: string[];
  pauseValues: (string | null)[];
  gateValues: (string | null)[][];
  /** Undefined when the script wrote no audit entry. */
  chain: ChainState | undefined;
}

export function parsePauseScriptReply(script: string, raw: unknown): PauseScriptReply {
  const parsed = pauseScriptReplySchema.safeParse(raw);
  if (!parsed.success) {
    throw new StoreError(
      'script',
      `script ${script} returned an unexpected reply: ${z.prettifyError(parsed.error)}`,
    );
  }
  const [code, info, , pauseValues, gateValues, chain] = parsed.data;
  return {
    code: codeNameOrThrow(script, code),
    info: info.map(String),
    pauseValues,
    gateValues,
    chain:
      chain.length === 0
        ? undefined
        : { head: chain[0], unsealed: chain[1], sealedAhead: chain.length === 3 },
  };
}

/** The reply of the single-key index scripts: a bare code. */
export function parseCodeReply(script: string, raw: unknown): ScriptCodeName {
  const parsed = z.number().int().safeParse(raw);
  if (!parsed.success) throw new StoreError('script', `script ${script} returned a non-code`);
  return codeNameOrThrow(script, parsed.data);
}

function codeNameOrThrow(script: string, code: number): ScriptCodeName {
  const name = scriptCodeName(code);
  if (name === undefined) {
    throw new StoreError('script', `script ${script} returned unknown code ${code}`);
  }
  return name;
}
