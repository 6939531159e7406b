import type { RedisClient } from '../redis-connection.js';
import { LuaScript } from './lua-script.js';
import { PAUSE_PRELUDE } from './prelude.lua.js';

/**
 * How one named argument of a script travels: what Node writes into ARGV and the Lua expression
 * that reads it back. `rest` takes every ARGV position left, so it can only come last.
 */
export interface ArgCodec<T> {
  readonly width: 'one' | 'rest';
  encode(value: T): (string | number)[];
  /** The Lua expression reading the argument from `ARGV[at]` (`rest`: from `at` on). */
  lua(at: number): string;
}

const one = <T>(encode: (value: T) => string | number, lua = (at: number) => `ARGV[${at}]`) =>
  ({ width: 'one', encode: (value: T) => [encode(value)], lua }) satisfies ArgCodec<T>;

/** The kinds of argument the per-pause scripts take. */
export const arg = {
  number: one<number>(
    (value) => value,
    (at) => `tonumber(ARGV[${at}])`,
  ),
  text: <T extends string = string>() => one<T>((value) => value),
  /** A JSON text the script copies verbatim (it never decodes it). */
  json: <T>() => one<T>((value) => JSON.stringify(value)),
  /** As `json`, with '' standing for none. */
  optionalJson: <T>() =>
    one<T | undefined>((value) => (value === undefined ? '' : JSON.stringify(value))),
  /** '1' or '0' in ARGV; the script reads a Lua boolean. */
  flag: one<boolean>(
    (value) => (value ? '1' : '0'),
    (at) => `ARGV[${at}] == '1'`,
  ),
  /** Every ARGV position left, as a Lua array of numbers. */
  numbers: {
    width: 'rest',
    encode: (values: readonly number[]) => [...values],
    lua: (at: number) =>
      `(function() local t = {} for i = ${at}, #ARGV do t[#t + 1] = tonumber(ARGV[i]) end return t end)()`,
  } satisfies ArgCodec<readonly number[]>,
};

/**
 * Lines Node sealed ahead for a transition's audit entries (redis-chain-offers.ts), all '' for
 * none: a transition that takes them passes them to the prelude's `offer_seal` first thing. Of
 * the bodies only their SHA-1 is sent, to check the call wrote those; the lines stay in Node,
 * which copies them to the store-wide audit once sealed.
 */
export const SEAL_OFFER_ARGS = {
  sealAfter: arg.text(),
  sealHead: arg.text(),
  sealDigest: arg.text(),
};
/** Lines sealed ahead, as SEAL_OFFER_ARGS carry them (redis-chain-offers.ts builds them). */
export interface SealOffer {
  /** The chain head the lines follow. */
  sealAfter: string;
  /** The head after them. */
  sealHead: string;
  /** The bodies the transition is expected to write, one a line. */
  sealBodies: string;
  /** Their SHA-1 (hex), which the script compares with that of the bodies it wrote. */
  sealDigest: string;
  /** Their sealed lines, one a line: not sent, kept for the store-wide audit. */
  sealLines: string;
}
export const NO_SEAL_OFFER: SealOffer = {
  sealAfter: '',
  sealHead: '',
  sealBodies: '',
  sealDigest: '',
  sealLines: '',
};
export const LUA_OFFER_SEAL = 'offer_seal(args.sealAfter, args.sealHead, args.sealDigest)';

/**
 * The arguments of a per-pause script, in ARGV order (an object's keys keep the order they
 * were written in). The prelude reads ARGV[1] as the clock, so `now` always comes first.
 */
// biome-ignore lint/suspicious/noExplicitAny: each codec's own value type is recovered by ArgsOf
export type ArgSpec = { readonly now: ArgCodec<number> } & Record<string, ArgCodec<any>>;

/** The typed arguments object a spec describes: what the Lua call and the memory twin take. */
export type ArgsOf<S extends ArgSpec> = {
  [K in keyof S]: S[K] extends ArgCodec<infer T> ? T : never;
};

/** A reply's code and info, as parsePauseScriptReply reads them. */
export interface CodeAndInfo<Code extends string = string> {
  code: Code;
  info: readonly string[];
}

/**
 * One per-pause script defined once: its name, its typed arguments, its Lua body and the decoder
 * of its code and info. The Lua source is the prelude, the script's own functions, a prologue
 * reading ARGV into the table `args` under the same names as in TypeScript, then the body; so a
 * positional slip between Node, the Lua header and the memory twin is a type error.
 */
export class PauseScript<S extends ArgSpec, Reply> {
  readonly lua: LuaScript;
  readonly names: readonly string[];

  constructor(
    readonly name: string,
    readonly spec: S,
    parts: { functions?: string; body: string },
    readonly decode: (reply: CodeAndInfo) => Reply,
  ) {
    this.names = Object.keys(spec);
    if (this.names[0] !== 'now') throw new Error(`script ${name}: its first argument is not now`);
    const source = [PAUSE_PRELUDE, parts.functions ?? '', luaPrologue(spec), parts.body].join('\n');
    this.lua = new LuaScript(name, source);
  }

  /** ARGV for `args`, in the spec's order. */
  encode(args: ArgsOf<S>): (string | number)[] {
    return this.names.flatMap((key) => {
      const argv = codecOf(this.spec, key).encode(args[key]);
      // Redis would take a missing value as an empty string: a caller's bug, refused here.
      if (argv.some((value) => value === undefined)) {
        throw new Error(`script ${this.name}: argument ${key} is missing`);
      }
      return argv;
    });
  }

  run(client: RedisClient, keys: readonly string[], args: ArgsOf<S>): Promise<unknown> {
    return this.lua.run(client, keys, this.encode(args));
  }
}

/** `local args = {now = tonumber(ARGV[1]), …}`: each argument under its TypeScript name. */
export function luaPrologue(spec: ArgSpec): string {
  const names = Object.keys(spec);
  const fields = names.map((key, i) => {
    const codec = codecOf(spec, key);
    if (codec.width === 'rest' && i !== names.length - 1) {
      throw new Error(`argument ${key} takes the rest of ARGV but is not the last`);
    }
    return `  ${key} = ${codec.lua(i + 1)},`;
  });
  return ['local args = {', ...fields, '}'].join('\n');
}

// biome-ignore lint/suspicious/noExplicitAny: the spec's codecs, each of its own value type
function codecOf(spec: ArgSpec, key: string): ArgCodec<any> {
  const codec = spec[key];
  if (codec === undefined) throw new Error(`no argument ${key}`);
  return codec;
}
