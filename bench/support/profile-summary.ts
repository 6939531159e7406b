import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { table } from './figures.js';

/** The parts of a V8 `.cpuprofile` the summary reads. */
const cpuProfileSchema = z.object({
  nodes: z.array(
    z.object({
      id: z.number(),
      callFrame: z.object({ functionName: z.string(), url: z.string(), lineNumber: z.number() }),
      children: z.array(z.number()).optional(),
    }),
  ),
  samples: z.array(z.number()),
  timeDeltas: z.array(z.number()),
});

export interface FrameShare {
  frame: string;
  /** Of all sampled time, 0–1. */
  share: number;
}

export interface ProfileSummary {
  /** Time spent in the frame itself. */
  self: FrameShare[];
  /** Time spent in the app's own frames (`src/`) and everything they called. */
  ownInclusive: FrameShare[];
}

/** The top frames of a CPU profile, by self time and (the app's own) by inclusive time. */
export async function summarizeProfile(file: string, top: number): Promise<ProfileSummary> {
  const profile = cpuProfileSchema.parse(JSON.parse(await readFile(file, 'utf8')));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parentOf.set(child, node.id);

  // Stopping the profiler is sampled too (its `Profiler.stop` call writes the profile): not app work.
  const profiler = new Set<number>();
  for (const node of profile.nodes) {
    if (!node.callFrame.url.startsWith('node:inspector')) continue;
    const stack = [node.id];
    for (let id = stack.pop(); id !== undefined; id = stack.pop()) {
      profiler.add(id);
      stack.push(...(byId.get(id)?.children ?? []));
    }
  }
  const timeById = new Map<number, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    if (profiler.has(id)) return;
    const delta = profile.timeDeltas[i] ?? 0;
    total += delta;
    timeById.set(id, (timeById.get(id) ?? 0) + delta);
  });

  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, time] of timeById) {
    const node = byId.get(id);
    if (node === undefined) continue;
    add(self, frameName(node.callFrame), time);
    // A frame counts once per sample however deep it recurses.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const frame = byId.get(at);
      if (frame === undefined) break;
      const name = frameName(frame.callFrame);
      if (seen.has(name)) continue;
      seen.add(name);
      add(inclusive, name, time);
    }
  }
  const ranked = (times: Map<string, number>, keep: (frame: string) => boolean) =>
    [...times]
      .filter(([frame]) => keep(frame))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([frame, time]) => ({ frame, share: total > 0 ? time / total : 0 }));
  return {
    self: ranked(self, () => true),
    ownInclusive: ranked(inclusive, (frame) => frame.includes('src/')),
  };
}

function add(times: Map<string, number>, frame: string, time: number): void {
  times.set(frame, (times.get(frame) ?? 0) + time);
}

/** `name file:line`, the file shortened to the package or to the app's `src/`. */
function frameName(callFrame: { functionName: string; url: string; lineNumber: number }): string {
  const file = callFrame.url
    .replace(/^.*\/node_modules\//, '')
    .replace(/^.*\/(src\/)/, '$1')
    .replace(/^file:\/\//, '');
  const where = file === '' ? '' : ` ${file}:${callFrame.lineNumber + 1}`;
  return `${callFrame.functionName || '(anonymous)'}${where}`;
}

/** The summary of a profile as printable lines: its top frames by self time, then the app's own. */
export async function profileLines(file: string, top: number): Promise<string[]> {
  const { self, ownInclusive } = await summarizeProfile(file, top);
  const percent = (share: number) => `${(100 * share).toFixed(1)} %`;
  const lines: string[] = [];
  for (const [title, frames] of [
    ['top frames by self time', self],
    ["the app's own frames (src/), inclusive", ownInclusive],
  ] as const) {
    lines.push(
      ...table(
        [title, 'share'],
        frames.map(({ frame, share }) => [frame, percent(share)]),
      ),
    );
    lines.push('');
  }
  return lines;
}
