#!/usr/bin/env node
/**
 * `adk-slack-approvals policy …` and `adk-slack-approvals audit …` (npx, or the command of an
 * installed package): stdout carries their output and nothing else.
 *
 * In a checkout with the development packages it runs the TypeScript sources through tsx, the
 * workspace packages from their sources too (their `source` export): nothing is built, so two
 * commands at once never race over a build. A production install has neither `src/` nor tsx:
 * it runs the built `dist/` (`npm run build`).
 */
import { existsSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const sources = new URL('../src/cli/adk-slack-approvals.ts', import.meta.url);
const built = new URL('../dist/cli/adk-slack-approvals.js', import.meta.url);

/** Resolves the workspace packages to their TypeScript sources, as `node --conditions=source`. */
const SOURCE_CONDITION = `export function resolve(specifier, context, next) {
  return next(specifier, { ...context, conditions: [...context.conditions, 'source'] });
}`;

function tsxInstalled() {
  try {
    createRequire(import.meta.url).resolve('tsx/esm/api');
    return true;
  } catch {
    return false;
  }
}

if (existsSync(sources) && tsxInstalled()) {
  const tsx = await import('tsx/esm/api');
  tsx.register();
  register(`data:text/javascript,${encodeURIComponent(SOURCE_CONDITION)}`);
  await import(sources.href);
} else if (existsSync(built)) {
  await import(built.href);
} else {
  process.stderr.write(
    'adk-slack-approvals: dist/ is not built. Run `npm run build`, or run it in a checkout with the development packages installed (`npm install`).\n',
  );
  process.exitCode = 2;
}
