import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The directory holding this package's `package.json`. Modules find files of the package from
 * here, because a path relative to a module differs between `src/` (tests, tsx) and `dist/`
 * (built).
 */
export function packageRoot(from: string = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json in ${from} or above it`);
  }
}

/** Whether the running code is the compiled output under `<package root>/dist/`. */
export function runningFromDist(moduleUrl: string): boolean {
  const file = fileURLToPath(moduleUrl);
  return file.startsWith(join(packageRoot(dirname(file)), 'dist', ''));
}
