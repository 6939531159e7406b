import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { InteractionDriver } from '../interactions/driver.js';
import type { SandboxState } from '../state.js';
import type { SuggestedPrompt } from '../suggestions.js';
import { findPerson } from '../workspace.js';
import { parseJsonObject, readBody, sendJson } from './bodies.js';
import type { LiveUpdates } from './live-updates.js';
import { pageSnapshot, workspaceDirectory } from './page-snapshot.js';

/**
 * `/sandbox/*`: what the page (and anyone driving the sandbox over HTTP) calls. The same
 * operations as the handle's driver methods, with JSON bodies.
 */

const user = z.string().min(1);
const inputValue = z.union([z.string(), z.array(z.string()), z.null()]);

const schemas = {
  command: z.object({
    user,
    channel: z.string(),
    command: z.string(),
    text: z.string().optional(),
  }),
  click: z.object({
    user,
    actionId: z.string(),
    blockId: z.string().optional(),
    value: z.union([z.string(), z.array(z.string())]).optional(),
    channel: z.string().optional(),
    messageTs: z.string().optional(),
    viewId: z.string().optional(),
  }),
  submit: z.object({
    user,
    viewId: z.string().optional(),
    values: z.record(z.string(), inputValue).optional(),
  }),
  close: z.object({ user, viewId: z.string().optional() }),
  message: z.object({
    user,
    channel: z.string(),
    text: z.string(),
    threadTs: z.string().optional(),
  }),
  dismiss: z.object({ user, ts: z.string() }),
  homeOpened: z.object({ user }),
  rateLimit: z.object({
    method: z.string().min(1),
    calls: z.number().int().min(0),
    retryAfterSec: z.number().int().min(0).default(1),
  }),
  app: z.object({ url: z.url({ protocol: /^https?$/ }).nullable() }),
};

export interface PageApiDependencies {
  state: SandboxState;
  driver: InteractionDriver;
  live: LiveUpdates;
  appEventsUrl: () => string | undefined;
  setAppEventsUrl: (url: string | undefined) => void;
  suggestions: readonly SuggestedPrompt[];
}

export async function handlePageApi(
  req: IncomingMessage,
  res: ServerResponse,
  route: string,
  deps: PageApiDependencies,
): Promise<void> {
  const { state, driver } = deps;
  if (req.method === 'GET') {
    const query = new URL(req.url ?? '/', 'http://sandbox').searchParams;
    switch (route) {
      case 'events':
        return deps.live.handle(req, res);
      case 'workspace':
        return sendJson(res, 200, {
          ...workspaceDirectory(state),
          appEventsUrl: deps.appEventsUrl() ?? null,
          suggestions: deps.suggestions.map((prompt) => ({ ...prompt })),
        });
      case 'state': {
        const person = findPerson(query.get('user') ?? '');
        if (!person)
          return sendJson(res, 400, { error: 'user: expected a person of the workspace' });
        return sendJson(
          res,
          200,
          pageSnapshot(state, person.id, deps.appEventsUrl() !== undefined),
        );
      }
      case 'calls':
        return sendJson(res, 200, { calls: state.calls.slice(-200) });
      default:
        return sendJson(res, 404, { error: `no route GET /sandbox/${route}` });
    }
  }
  if (req.method !== 'POST') return sendJson(res, 405, { error: 'method not allowed' });
  const body = await readBody(req);
  const json = body.ok
    ? parseJsonObject(body.text === '' ? '{}' : body.text)
    : { ok: false as const };
  if (!json.ok) return sendJson(res, 400, { error: 'expected a JSON object body' });
  const parse = <T>(schema: z.ZodType<T>): T | undefined => {
    const parsed = schema.safeParse(json.value);
    if (parsed.success) return parsed.data;
    sendJson(res, 400, { error: z.prettifyError(parsed.error) });
    return undefined;
  };
  switch (route) {
    case 'command': {
      const input = parse(schemas.command);
      return input && sendJson(res, 200, await driver.slashCommand(input));
    }
    case 'click': {
      const input = parse(schemas.click);
      return input && sendJson(res, 200, await driver.clickButton(input));
    }
    case 'submit': {
      const input = parse(schemas.submit);
      return input && sendJson(res, 200, await driver.submitView(input));
    }
    case 'close': {
      const input = parse(schemas.close);
      return input && sendJson(res, 200, await driver.closeView(input));
    }
    case 'message': {
      const input = parse(schemas.message);
      if (!input) return;
      const posted = driver.postAsPerson(input);
      return sendJson(
        res,
        posted.ok ? 200 : 400,
        posted.ok ? { ok: true, ts: posted.message.ts } : { error: posted.reason },
      );
    }
    case 'dismiss': {
      const input = parse(schemas.dismiss);
      return input && sendJson(res, 200, { ok: driver.dismissEphemeral(input) });
    }
    case 'home-opened': {
      const input = parse(schemas.homeOpened);
      if (!input) return;
      const opened = driver.openAppHome(input.user);
      return sendJson(
        res,
        opened.ok ? 200 : 400,
        opened.ok ? { ok: true } : { error: opened.reason },
      );
    }
    case 'rate-limit': {
      const input = parse(schemas.rateLimit);
      if (!input) return;
      state.rateLimits.limit(input.method, input.calls, input.retryAfterSec);
      return sendJson(res, 200, { ok: true });
    }
    case 'app': {
      const input = parse(schemas.app);
      if (!input) return;
      deps.setAppEventsUrl(input.url ?? undefined);
      return sendJson(res, 200, { ok: true });
    }
    case 'reset':
      state.reset();
      state.changed();
      return sendJson(res, 200, { ok: true });
    default:
      return sendJson(res, 404, { error: `no route POST /sandbox/${route}` });
  }
}
