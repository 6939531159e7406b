/**
 * A typed view of `@marcbachmann/cel-js`'s parsed expression, for the passes that read it (cost,
 * reads) or adjust it before type-checking (RE2 `matches`, the step meter). The library's types
 * describe only part of its tree (not comprehensions nor macros), so each node is checked here
 * for the shape it has in version 8; a node of another shape is `undefined`, and the passes then
 * refuse the condition rather than guess at what it costs.
 *
 * Macros (`all`, `exists`, `exists_one`, `map`, `filter`) stay a method call whose `meta.alternate`
 * is the `comprehension` that runs; constants (type names) get an `alternate` when checked; `has()`
 * and `cel.bind()` are a call with `meta.macro`.
 */

export interface CelNode {
  readonly op: string;
  readonly args: unknown;
  readonly meta: Readonly<Record<string, unknown>>;
}

export interface Comprehension {
  /** `quantifier` for all/exists; absent for map/filter (and exists_one, which counts). */
  kind?: unknown;
  iterable: CelNode;
  iterVarName: string;
  init: CelNode;
  step: CelNode;
}

export function isNode(value: unknown): value is CelNode {
  if (value === null || typeof value !== 'object') return false;
  if (!('op' in value) || typeof value.op !== 'string' || !('args' in value)) return false;
  return 'meta' in value && typeof value.meta === 'object' && value.meta !== null;
}

/** The node that runs in place of `node` (a macro's comprehension, a constant's value). */
export function effective(node: CelNode): CelNode {
  const alternate = node.meta.alternate;
  return isNode(alternate) ? effective(alternate) : node;
}

export function comprehensionOf(node: CelNode): Comprehension | undefined {
  const args = node.args;
  if (node.op !== 'comprehension' || args === null || typeof args !== 'object') return undefined;
  if (!('iterable' in args && 'iterVarName' in args && 'init' in args && 'step' in args)) {
    return undefined;
  }
  const { iterable, iterVarName, init, step } = args;
  if (!isNode(iterable) || typeof iterVarName !== 'string' || !isNode(init) || !isNode(step)) {
    return undefined;
  }
  return { kind: 'kind' in args ? args.kind : undefined, iterable, iterVarName, init, step };
}

/** `[name, receiver?, args]` of a `call` or `rcall` node. */
export function callOf(
  node: CelNode,
): { name: string; receiver?: CelNode; args: CelNode[] } | undefined {
  const args = node.args;
  if (!Array.isArray(args)) return undefined;
  if (node.op === 'call' && typeof args[0] === 'string' && nodeList(args[1])) {
    return { name: args[0], args: args[1] };
  }
  if (node.op === 'rcall' && typeof args[0] === 'string' && isNode(args[1]) && nodeList(args[2])) {
    return { name: args[0], receiver: args[1], args: args[2] };
  }
  return undefined;
}

export function nodeList(value: unknown): value is CelNode[] {
  return Array.isArray(value) && value.every(isNode);
}

/** `cel.bind(name, value, expression)`, as the macro keeps it. */
export function bindOf(node: CelNode): { name: string; value: CelNode; body: CelNode } | undefined {
  const macro = node.meta.macro;
  if (macro === null || typeof macro !== 'object') return undefined;
  if (!('var' in macro && 'val' in macro && 'exp' in macro)) return undefined;
  const { var: name, val, exp } = macro;
  return typeof name === 'string' && isNode(val) && isNode(exp)
    ? { name, value: val, body: exp }
    : undefined;
}

/** Every node reachable from `root`, each once: a macro's arguments and what runs in its place. */
export function allNodes(root: CelNode): CelNode[] {
  const seen = new Set<CelNode>();
  const pending = [root];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (seen.has(node)) continue;
    seen.add(node);
    pending.push(...childrenOf(node));
  }
  return [...seen];
}

function childrenOf(node: CelNode): CelNode[] {
  const found: CelNode[] = [];
  const collect = (value: unknown, depth: number): void => {
    if (isNode(value)) found.push(value);
    else if (Array.isArray(value) && depth < 3) for (const item of value) collect(item, depth + 1);
  };
  collect(node.meta.alternate, 0);
  const macro = node.meta.macro;
  if (macro !== null && typeof macro === 'object') {
    for (const value of Object.values(macro)) collect(value, 0);
  }
  const comprehension = comprehensionOf(node);
  if (comprehension !== undefined) {
    found.push(comprehension.iterable, comprehension.init, comprehension.step);
  } else collect(node.args, 0);
  return found;
}
