/** The pretend books of the payments demo agent. Nothing here moves real money. */

export const ACCOUNTS: Readonly<Record<string, number>> = { checking: 12_480.5, savings: 40_200 };

export interface Invoice {
  payee: string;
  amount: number;
  due: string;
}

export const OPEN_INVOICES: Readonly<Record<string, Invoice>> = {
  'INV-1042': { payee: 'Acme Hosting', amount: 1250, due: '2026-12-01' },
  'INV-1043': { payee: 'Paper & Co', amount: 86.4, due: '2026-11-28' },
  'INV-1044': { payee: 'Northwind Logistics', amount: 480, due: '2026-12-05' },
};

const dollars = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

export function usd(amount: number): string {
  return dollars.format(amount);
}

/** A stable reference for the same payment, like a bank that deduplicates requests. */
export function paymentReference(prefix: string, parts: readonly (string | number)[]): string {
  let hash = 0;
  for (const char of parts.join('|')) hash = (hash * 31 + (char.codePointAt(0) ?? 0)) >>> 0;
  return `${prefix}-${hash.toString(36).toUpperCase().padStart(7, '0').slice(0, 7)}`;
}
