import { describe, expect, it } from 'vitest';
import { AUDIT_CURSOR_KIND } from '../../src/approvals/audit-export.js';
import { type AuditVerdict, AuditVerifier } from '../../src/approvals/audit-verify.js';
import { chain, exportHeader } from '../support/audit-lines.js';

const header = exportHeader;

function verify(lines: readonly string[]): AuditVerdict {
  const verifier = new AuditVerifier();
  for (const line of lines) verifier.add(line);
  return verifier.result();
}

/** Two pauses' chains interleaved, as an export by time has them. */
function file(): string[] {
  const a = chain('pA', 4);
  const b = chain('pB', 3);
  return [header(), a[0], b[0], a[1], a[2], b[1], a[3], b[2]].map(String);
}

describe('audit verify', () => {
  it('accepts an export as written', () => {
    expect(verify(file())).toMatchObject({ ok: true, entries: 7, pauses: 2, linksChecked: true });
  });

  it('names the line where one character was changed', () => {
    const lines = file();
    lines[4] = String(lines[4]).replace('"U0BOB"', '"U0EVE"');
    expect(verify(lines)).toEqual({
      ok: false,
      line: 5,
      problem: 'its hash does not match its content: the line was changed after it was written',
    });
  });

  it('fails at the next line of the pause when a line was deleted, the first one included', () => {
    const middle = file();
    middle.splice(3, 1); // pA's seq 2
    expect(verify(middle)).toMatchObject({ ok: false, line: 4 });
    expect(verify(middle)).toMatchObject({
      problem: expect.stringContaining('seq 3 follows seq 1'),
    });
    const first = file();
    first.splice(1, 1); // pA's seq 1
    expect(verify(first)).toMatchObject({
      ok: false,
      line: 3,
      problem: 'pause pA starts at seq 2: its lines 1 to 1 are missing',
    });
  });

  it('fails when a line is swapped for a line that hashes right but links wrong', () => {
    const lines = file();
    const forged = chain('pA', 4, 1)[2]?.replace('"at":1002', '"at":1002');
    const other = chain('pA', 2, 3, 'f'.repeat(64))[0];
    lines[4] = String(other ?? forged);
    expect(verify(lines)).toMatchObject({
      ok: false,
      line: 5,
      problem: expect.stringContaining('prev'),
    });
  });

  it('a ranged export may start a pause mid-way (an anchor); a filtered one checks each line alone', () => {
    const a = chain('pA', 4);
    const ranged = [header({ since: 1_001 }), ...a.slice(1)].map(String);
    expect(verify(ranged)).toMatchObject({ ok: true, anchors: [2] });
    const filtered = [header({ filters: { tool: 'restart' } }), a[1], a[3]].map(String);
    expect(verify([header({ filters: { app: 'ops' } }), a[1], a[3]].map(String))).toMatchObject({
      ok: false,
    });
    expect(verify(filtered)).toMatchObject({ ok: true, linksChecked: false });
    const cursor = [...file(), JSON.stringify({ kind: AUDIT_CURSOR_KIND, nextCursor: '5-0' })];
    expect(verify(cursor)).toMatchObject({ ok: true, entries: 7 });
  });

  it('refuses a file that is not an export, and a line without a hash', () => {
    expect(verify([chain('pA', 1)[0] ?? ''])).toMatchObject({ ok: false, line: 1 });
    const stripped = file();
    stripped[2] = String(stripped[2]).replace(/,"hash":"[0-9a-f]{64}"/, '');
    expect(verify(stripped)).toMatchObject({
      ok: false,
      line: 3,
      problem: expect.stringContaining('no hash'),
    });
  });
});
