import { describe, expect, it } from 'vitest';
import type { PauseView } from '../../../src/approvals/records.js';
import { RecentViews } from '../../../src/approvals/store/recent-views.js';
import { gateRecord, pauseView } from '../../support/records.js';

function view(id: string, version = 1): PauseView {
  return pauseView([gateRecord({ version })], { id });
}

describe('the pauses a replica saw last', () => {
  it('keeps the newest version of a pause when replies come back out of order', () => {
    const views = new RecentViews();
    views.remember(view('p1', 3), 10);
    views.remember(view('p1', 2), 10);
    expect(views.get('p1')?.gates[0]?.version).toBe(3);
    views.remember(view('p1', 4), 10);
    expect(views.get('p1')?.gates[0]?.version).toBe(4);
  });

  it('keeps the last pauses it touched, as many as it may, the oldest going first', () => {
    const views = new RecentViews(2);
    views.remember(view('p1'), 10);
    views.remember(view('p2'), 10);
    views.remember(view('p1', 2), 10);
    views.remember(view('p3'), 10);
    expect(['p1', 'p2', 'p3'].map((id) => views.get(id) !== undefined)).toEqual([
      true,
      false,
      true,
    ]);
  });

  it('keeps no more than its bytes: large records push the oldest out, and one larger than all is not kept', () => {
    const views = new RecentViews(100, 1_000);
    views.remember(view('p1'), 400);
    views.remember(view('p2'), 400);
    views.remember(view('p3'), 400);
    expect(['p1', 'p2', 'p3'].map((id) => views.get(id) !== undefined)).toEqual([
      false,
      true,
      true,
    ]);
    views.remember(view('huge'), 5_000);
    expect(views.get('huge')).toBeUndefined();
    expect(views.get('p3')).toBeDefined();
    views.forget('p3');
    views.remember(view('p4'), 600);
    expect(['p2', 'p4'].map((id) => views.get(id) !== undefined)).toEqual([true, true]);
  });
});
