import { table } from './figures.js';

/**
 * One row of the performance budget (issue 14's table): what this run measured, the floor it
 * measured next to it (the same work done by the simplest thing that could do it, on the same
 * machine at the same time), the budget, and whether the measure is within it.
 */
export interface BudgetRow {
  figure: string;
  measured: string;
  floor: string;
  budget: string;
  /** Undefined: not measured in this run (the row says why). */
  met: boolean | undefined;
}

export function budgetTable(rows: readonly BudgetRow[]): string[] {
  return table(
    ['figure', 'measured', 'floor (same run)', 'budget', 'met'],
    rows.map((row) => [
      row.figure,
      row.measured,
      row.floor,
      row.budget,
      row.met === undefined ? 'not measured' : row.met ? 'yes' : 'NO',
    ]),
  );
}

/** `a–b` for a range of figures, or one figure when they agree. */
export function range(values: readonly number[], format: (value: number) => string): string {
  if (values.length === 0) return '-';
  const low = format(Math.min(...values));
  const high = format(Math.max(...values));
  return low === high ? low : `${low}–${high}`;
}
