import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPolicyCli } from '../../src/cli/policy-cli.js';
import { ACTION_IDS } from '../../src/slack/codecs/action-ids.js';
import { type FakeGemini, type FunctionCall, startFakeGemini } from '../support/fake-gemini.js';
import { PYTHON_ADK, PYTHON_ADK_SKIPPED } from '../support/python-adk.js';
import { portOutsideEphemeralRange } from '../support/server-process.js';
import { allBlocks, type DocBlock, REPO_ROOT, where } from './doc-blocks.js';
import {
  Approver,
  type Background,
  mapPorts,
  type Ports,
  runShell,
  SandboxHands,
  save,
  startBackground,
  untrackedFiles,
} from './reader.js';

/**
 * `npm run test:docs`: every runnable code block of README.md and docs/ is run as written, in
 * order, the way a reader follows them (test/docs/doc-blocks.ts says how each kind is run, and
 * test/docs/reader.ts what differs from a reader's machine). One test per section: the servers a
 * section starts (`npm start`, an `adk api_server`) are shared by its blocks and stopped at its
 * end. Bob, in the sandbox, approves every card as it appears, as the docs ask the reader to
 * (`Approver`).
 */

/**
 * What the stand-in for Gemini answers the prompts the docs' own agents are given: the function
 * calls a real model would make. A prompt missing here fails its run, and the test names it.
 */
const MODEL_TURNS: Record<string, FunctionCall[]> = {
  'restart payments-api': [{ name: 'restart_service', args: { service: 'payments-api' } }],
  'scale web to 3': [{ name: 'scale_deployment', args: { deployment: 'web', replicas: 3 } }],
  'schedule maintenance for payments-api tonight': [
    { name: 'schedule_maintenance', args: { service: 'payments-api' } },
  ],
};

/** How long a block may take: a cold `npm start` builds first (minutes on a busy machine). */
const BLOCK_TIMEOUT_MS = 600_000;
const RUN_TIMEOUT_MS = 60_000;

const blocks = await allBlocks();
const sections = new Map<string, DocBlock[]>();
for (const block of blocks) {
  const key = `${block.document} › ${block.section}`;
  sections.set(key, [...(sections.get(key) ?? []), block]);
}

let home: string;
let ports: Ports;
let gemini: FakeGemini;
let env: NodeJS.ProcessEnv;
let untrackedBefore: string[] | undefined;
let approver: Approver;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'docs-reader-'));
  // What the docs install with npm in a folder of the reader's (@google/adk, tsx…) is found
  // there through the home's node_modules: this checkout's.
  await symlink(join(REPO_ROOT, 'node_modules'), join(home, 'node_modules'));
  // Chosen now, listened on sections later: outside the range outgoing connections take theirs from.
  const taken: number[] = [];
  ports = {
    app: await anotherPort(taken),
    sandbox: await anotherPort(taken),
    adk: await anotherPort(taken),
    alertmanager: await anotherPort(taken),
  };
  gemini = await startFakeGemini(MODEL_TURNS);
  env = {
    PATH: [PYTHON_ADK ? `${PYTHON_ADK}/bin` : undefined, process.env.PATH]
      .filter(Boolean)
      .join(':'),
    HOME: home,
    TMPDIR: process.env.TMPDIR ?? tmpdir(),
    LANG: 'C.UTF-8',
    NO_COLOR: '1',
    PORT: String(ports.app),
    SANDBOX_PORT: String(ports.sandbox),
    PYTHONPATH: join(REPO_ROOT, 'clients/python'),
    PYTHONDONTWRITEBYTECODE: '1',
    GEMINI_API_KEY: 'docs-test-stand-in-key',
    GOOGLE_GEMINI_BASE_URL: gemini.baseUrl,
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
  untrackedBefore = untrackedFiles();
  approver = new Approver(
    new SandboxHands(`http://127.0.0.1:${ports.sandbox}`),
    ACTION_IDS.approve,
  );
});

afterAll(async () => {
  await approver?.stop();
  await gemini?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

function needsPython(section: DocBlock[]): boolean {
  return section.some(
    (block) =>
      block.plan.kind !== 'not-run' &&
      (block.language === 'python' || /^\s*(python3?|adk|pip) /m.test(block.text)),
  );
}

async function runSection(section: DocBlock[]): Promise<void> {
  const backgrounds: Background[] = [];
  const sandbox = new SandboxHands(`http://127.0.0.1:${ports.sandbox}`);
  const took: string[] = [];
  try {
    for (const block of section) {
      const started = performance.now();
      const text = mapPorts(block.text, ports);
      const plan = block.plan;
      const failure = (problem: string) => new Error(`${where(block)}: ${problem}`);
      switch (plan.kind) {
        case 'shell': {
          const ran = await runShell(text, env, BLOCK_TIMEOUT_MS);
          if (ran.code !== 0) {
            throw failure(
              `exited ${ran.code}${unknownPrompts()}\n--- the block ---\n${text}--- its output ---\n${ran.output}${serverOutputs(backgrounds)}`,
            );
          }
          break;
        }
        case 'background':
          try {
            backgrounds.push(
              await startBackground(text, env, mapPorts(plan.readyUrl, ports), BLOCK_TIMEOUT_MS),
            );
          } catch (error) {
            throw failure(`a server that did not start: ${String(error)}`);
          }
          break;
        case 'save':
          await save(home, plan.path, text);
          break;
        case 'typed': {
          let root: string;
          try {
            root = await sandbox.type(plan.person, plan.channel, text, RUN_TIMEOUT_MS);
          } catch (error) {
            throw failure(`${String(error)}${unknownPrompts()}${serverOutputs(backgrounds)}`);
          }
          const approvals = approver.approvalsIn(plan.channel, root);
          if (plan.asks && approvals === 0) throw failure('it ran without asking for approval');
          if (!plan.asks && approvals > 0) throw failure('it asked for approval');
          break;
        }
        case 'policy': {
          const file = join(home, 'policy-block.yml');
          await writeFile(file, text);
          const said: string[] = [];
          const code = await runPolicyCli(['check', file], {
            out: (line) => said.push(line),
            err: (line) => said.push(line),
          });
          if (code !== 0) throw failure(`the policy does not check:\n${said.join('\n')}`);
          break;
        }
        case 'not-run':
          break;
        case 'unrunnable':
          throw failure(plan.problem);
      }
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      took.push(`${where(block)} ${plan.kind} ${seconds} s`);
    }
    await noResumeFailed(backgrounds);
  } finally {
    for (const background of backgrounds.reverse()) await background.stop();
    console.log(took.join('\n'));
  }
  const left = untrackedFiles()?.filter((file) => !untrackedBefore?.includes(file)) ?? [];
  expect(left, 'blocks wrote these into the checkout; write under ~/ instead').toEqual([]);
}

/** No decision this section's app took failed to reach its agent (its /metrics counts them). */
async function noResumeFailed(backgrounds: Background[]): Promise<void> {
  const metrics = await fetch(`http://127.0.0.1:${ports.app}/metrics`).then(
    (response) => (response.ok ? response.text() : undefined),
    () => undefined,
  );
  if (metrics === undefined) return;
  const failures = metrics
    .split('\n')
    .filter((line) => line.startsWith('approvals_resume_failures_total{'))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
  expect(failures, `resumes failed${serverOutputs(backgrounds)}`).toBe(0);
}

function unknownPrompts(): string {
  return gemini.unknownPrompts.length === 0
    ? ''
    : `\nthe stand-in for Gemini has no turn for: ${gemini.unknownPrompts.join(' | ')} (MODEL_TURNS)`;
}

function serverOutputs(backgrounds: Background[]): string {
  return backgrounds
    .map(
      (background, index) =>
        `\n--- server ${index + 1}, its last output ---\n${background.output().slice(-4_000)}`,
    )
    .join('');
}

for (const [name, section] of sections) {
  if (section.every((block) => block.plan.kind === 'not-run')) continue;
  if (needsPython(section) && PYTHON_ADK === undefined) {
    it.skip(`${name} (${PYTHON_ADK_SKIPPED})`, () => {});
    continue;
  }
  describe(name.split(' › ')[0] ?? name, () => {
    it(name.split(' › ').slice(1).join(' › ') || 'top', { timeout: 1_200_000 }, async () => {
      await runSection(section);
    });
  });
}

/** A port free now, outside the ephemeral range and not among `taken` (which it joins). */
async function anotherPort(taken: number[]): Promise<number> {
  for (;;) {
    const port = await portOutsideEphemeralRange();
    if (taken.includes(port)) continue;
    taken.push(port);
    return port;
  }
}
