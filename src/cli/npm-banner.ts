/**
 * npm's run-script banner. `npm run audit -- export > audit.jsonl` gets, above the export and in
 * the same stdout, what npm prints before running a script unless told `--silent`: a blank line,
 * `> adk-slack-approvals@0.1.0 audit`, `> <the script> <its arguments>` and a blank line. No
 * script can keep it out of its own stdout, so `verify` recognises exactly that shape at the top
 * of a file and counts those lines as not part of the export; anything else that is not JSON is
 * still a broken line. `adk-slack-approvals audit export` (npx, or the installed command) writes
 * the export alone.
 */

/** `> <name>@<version> <script>`: the banner's first line. */
const BANNER_TITLE = /^> \S+@\S+ \S+$/;
/** More lines than a banner has: past them, the top of the file is not a banner. */
const HEAD_MAX = 8;

/** How many of a file's first lines are npm's banner; 0 when it does not start with one. */
export function npmBannerLength(head: readonly string[]): number {
  let at = 0;
  while (head[at]?.trim() === '') at += 1;
  if (!BANNER_TITLE.test(head[at] ?? '')) return 0;
  at += 1;
  while (head[at]?.startsWith('> ')) at += 1;
  while (head[at]?.trim() === '') at += 1;
  return at;
}

/** The file's lines, each marked whether it belongs to npm's banner at the top. */
export async function* markNpmBanner(
  lines: AsyncIterable<string>,
): AsyncGenerator<{ line: string; banner: boolean }> {
  const head: string[] = [];
  let bannerLeft: number | undefined;
  for await (const line of lines) {
    if (bannerLeft === undefined) {
      head.push(line);
      // The export proper starts with its JSON header line.
      if (!line.startsWith('{') && head.length < HEAD_MAX) continue;
      bannerLeft = npmBannerLength(head);
      for (const buffered of head.splice(0)) {
        yield { line: buffered, banner: bannerLeft > 0 };
        bannerLeft = Math.max(0, bannerLeft - 1);
      }
      continue;
    }
    yield { line, banner: false };
  }
  const left = npmBannerLength(head);
  for (const [index, line] of head.entries()) yield { line, banner: index < left };
}

/** The npm banner sits above this process's output: `npm run audit` without `--silent`. */
export function npmBannerAbove(env: NodeJS.ProcessEnv): boolean {
  return (
    env.npm_lifecycle_event !== undefined &&
    env.npm_lifecycle_event !== 'npx' &&
    env.npm_config_loglevel !== 'silent' &&
    env.npm_config_json !== 'true'
  );
}
