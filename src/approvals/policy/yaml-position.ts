import { type Document, isAlias, isMap, isScalar, isSeq, type LineCounter, type Node } from 'yaml';

/** 1-based, as editors show them. */
export interface Position {
  line: number;
  col: number;
}

/**
 * Where a key path points in a parsed YAML (or JSON) document: the value's first character, or
 * with `at: 'key'` the key's. A path that leaves the document (a missing key) points at the
 * deepest node it reached, which is where the missing thing belongs.
 */
export function positionOf(
  doc: Document,
  lineCounter: LineCounter,
  path: readonly PropertyKey[],
  at: 'value' | 'key' = 'value',
): Position {
  let node: unknown = doc.contents;
  let found: Node | undefined = isNodeWithRange(node) ? node : undefined;
  for (const [index, segment] of path.entries()) {
    if (isAlias(node)) node = node.resolve(doc);
    const last = index === path.length - 1;
    if (isMap(node)) {
      const pair = node.items.find(
        (p) => isScalar(p.key) && String(p.key.value) === String(segment),
      );
      if (!pair) break;
      const value = isNodeWithRange(pair.value) ? pair.value : undefined;
      const key = isNodeWithRange(pair.key) ? pair.key : undefined;
      node = last && at === 'key' ? key : (value ?? key);
    } else if (isSeq(node)) {
      node = node.items[Number(segment)];
    } else break;
    if (!isNodeWithRange(node)) break;
    found = node;
  }
  const offset = found?.range?.[0] ?? 0;
  return lineCounter.linePos(offset);
}

function isNodeWithRange(value: unknown): value is Node & { range: [number, number, number] } {
  return (isScalar(value) || isMap(value) || isSeq(value) || isAlias(value)) && value.range != null;
}
