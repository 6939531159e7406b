/**
 * The app's layers, checked by `npm run check` (dependency-cruiser). Imports point down only:
 *
 *   entries  →  listeners, api  →  workflow  →  slack  →  tracing  →  approvals  →  adk  →  foundation
 *
 * Every module of `src/` has its place, and a module outside them fails the check:
 * - the entries and their wiring: `main.ts` and `app.ts` (production), `dev/` (npm start), the
 *   command-line tools in `cli/` (npm run policy, npm run audit), and the two process-level parts
 *   only they build, `process-guard.ts` and the Prometheus metrics adapter. No layer imports them.
 * - the layers, one folder each; `tracing/` (approvals as spans in the agent's trace) is used by
 *   the workflow and the API and reads only the domain's records.
 * - foundation: the few root modules every layer may use (config, log, json, error-message,
 *   process-lifecycle, metrics, correlation); they import no layer.
 * - inside `slack/`, three parts, each file in one of them:
 *
 *     render/  →  codecs/  ←  transport/
 *
 *   `render/` is pure (data in, Block Kit out; `forms/` also reads submissions back): it imports
 *   no transport, neither the folder nor what talks to Slack or the network (Bolt, the Web API
 *   client, sockets). `codecs/` (ids and values in and out of Slack: action and block ids,
 *   metadata, view state, escaping, Block Kit types) imports neither part. `transport/` (the
 *   Bolt app, the Web API port and HTTP client, the token, rate limits) sends what it is given:
 *   it imports no renderer. The layers above use all three.
 * Type-only imports count: a type pulled from above is still an arrow upward. The workspace
 * packages never import the app, and only the dev entry (`src/dev/`) may use the development
 * packages (the Slack sandbox, the demo), so the production graph stays small.
 */
const LAYERS = [
  ['adk', '^src/adk/'],
  ['approvals', '^src/approvals/'],
  ['tracing', '^src/tracing/'],
  ['slack', '^src/slack/'],
  ['workflow', '^src/workflow/'],
  ['listeners and api', '^src/(listeners|api)/'],
];
const FOUNDATION =
  '^src/(config|log|json|error-message|process-lifecycle|metrics|correlation)\\.ts$';
const WIRING = '^src/(main|app|open-stores|process-guard|prometheus-metrics)\\.ts$|^src/(dev|cli)/';
/** Where every module of `src/` belongs: a module elsewhere is under no rule, so it is refused. */
const PLACED = [...LAYERS.map(([, path]) => path), FOUNDATION, WIRING].join('|');
/**
 * Development packages, by their source path or their installed name. The ADK SDK is one for the
 * app: only the plugin package and the demo agents run it (scripts/production-install.sh).
 */
const DEV_ONLY =
  '^packages/(slack-sandbox|demo)/|node_modules/@adk-slack-approvals/(slack-sandbox|demo)/|node_modules/@google/adk(-devtools)?/';

const SLACK_RENDER = '^src/slack/render/';
const SLACK_CODECS = '^src/slack/codecs/';
const SLACK_TRANSPORT = '^src/slack/transport/';
/** What talks to Slack or the network: the transport folder, Bolt, Slack's clients, sockets. */
const TALKS_TO_SLACK = [
  SLACK_TRANSPORT,
  'node_modules/@slack/(bolt|web-api|socket-mode|oauth)/',
  '^(node:)?(http|https|http2|net|tls|dgram)$',
].join('|');
const SLACK_PARTS = [SLACK_RENDER, SLACK_CODECS, SLACK_TRANSPORT].join('|');
const SLACK_UNPLACED =
  'A module of slack/ outside render/, codecs/ and transport/ escapes their rules: put it in one.';

/** Layer i may not import layer j > i (nor the wiring). */
const upward = LAYERS.map(([name, path], index) => ({
  name: `no-upward-from-${name.replace(/ /g, '-')}`,
  comment: `${name} sits below ${LAYERS.slice(index + 1)
    .map(([above]) => above)
    .concat('the wiring')
    .join(', ')}: it may not import them.`,
  severity: 'error',
  from: { path },
  to: {
    path: [...LAYERS.slice(index + 1).map(([, above]) => above), WIRING].join('|'),
    dependencyTypesNot: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'core'],
  },
}));

module.exports = {
  forbidden: [
    ...upward,
    {
      name: 'foundation-imports-no-layer',
      comment: 'The foundation (config, log, json, …) is used by every layer and imports none.',
      severity: 'error',
      from: { path: FOUNDATION },
      to: { path: '^src/', pathNot: FOUNDATION },
    },
    {
      name: 'every-module-placed',
      comment:
        'A module of src/ outside the layers, the foundation and the entries escapes every rule: give it a place here.',
      severity: 'error',
      from: { path: '^src/', pathNot: PLACED },
      to: {},
    },
    {
      name: 'every-import-placed',
      comment:
        'A module of src/ outside the layers, the foundation and the entries: give it a place here.',
      severity: 'error',
      from: {},
      to: { path: '^src/', pathNot: PLACED },
    },
    {
      name: 'slack-renderers-import-no-transport',
      comment:
        "slack/render/ is pure: data in, Block Kit out. Sending is the transport's job (slack/transport/, Bolt, the Web API client, sockets).",
      severity: 'error',
      from: { path: SLACK_RENDER },
      to: { path: TALKS_TO_SLACK },
    },
    {
      name: 'slack-codecs-import-no-renderer-nor-transport',
      comment:
        'slack/codecs/ (ids and values in and out of Slack) sits under the renderers and the transport: it imports neither.',
      severity: 'error',
      from: { path: SLACK_CODECS },
      to: { path: [SLACK_RENDER, TALKS_TO_SLACK].join('|') },
    },
    {
      name: 'slack-transport-imports-no-renderer',
      comment:
        'slack/transport/ sends what the workflow gives it: it composes no message (slack/render/).',
      severity: 'error',
      from: { path: SLACK_TRANSPORT },
      to: { path: SLACK_RENDER },
    },
    {
      name: 'every-slack-module-placed',
      comment: SLACK_UNPLACED,
      severity: 'error',
      from: { path: '^src/slack/', pathNot: SLACK_PARTS },
      to: {},
    },
    {
      name: 'every-slack-import-placed',
      comment: SLACK_UNPLACED,
      severity: 'error',
      from: {},
      to: { path: '^src/slack/', pathNot: SLACK_PARTS },
    },
    {
      name: 'packages-import-no-app',
      comment: 'A workspace package stands on its own: the app depends on it, never the reverse.',
      severity: 'error',
      from: { path: '^packages/' },
      to: { path: '^src/' },
    },
    {
      name: 'dev-packages-only-in-dev-entry',
      comment:
        'The sandbox and the demo are development tools: only src/dev/ (npm start) uses them.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/dev/' },
      to: { path: DEV_ONLY },
    },
    {
      name: 'production-graph-stays-small',
      comment: 'Nothing the production entry reaches may pull in a development package.',
      severity: 'error',
      from: { path: '^src/main\\.ts$' },
      to: { path: DEV_ONLY, reachable: true },
    },
    {
      name: 'no-circular',
      comment: 'A loop (type-only imports included) makes the layers meaningless.',
      severity: 'error',
      from: { path: '^(src|packages)/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['source', 'import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js'],
    },
  },
};
