/**
 * The app's layers, checked by `npm run check` (dependency-cruiser). Imports point down only:
 *
 *   main, app, dev  →  listeners, api  →  workflow  →  slack  →  approvals  →  adk  →  foundation
 *
 * Foundation is the few root modules every layer may use (config, log, json, error-message,
 * package-root). Type-only imports count: a type pulled from above is still an arrow upward.
 */
const LAYERS = [
  ['adk', '^src/adk/'],
  ['approvals', '^src/approvals/'],
  ['slack', '^src/slack/'],
  ['workflow', '^src/workflow/'],
  ['listeners and api', '^src/(listeners|api)/'],
];
const FOUNDATION = '^src/(config|log|json|error-message|package-root|metrics|correlation)\\.ts$';
const WIRING = '^src/(main|app)\\.ts$|^src/dev/';

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
      comment: 'config, log, json and error-message are used by every layer and import none.',
      severity: 'error',
      from: { path: FOUNDATION },
      to: { path: '^src/', pathNot: FOUNDATION },
    },
    {
      name: 'no-circular',
      comment: 'A loop (type-only imports included) makes the layers meaningless.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js'],
    },
  },
};
