import { z } from 'zod';
import { type DemoScript, skill } from '../../scripted-model.js';
import { ACCOUNTS, OPEN_INVOICES, usd } from './books.js';
import {
  balanceParameters,
  balanceResult,
  listInvoicesResult,
  payInvoiceParameters,
  payInvoiceResult,
  transferParameters,
  transferResult,
} from './tools.js';

/** How the offline model understands payment requests and talks about their results. */

const AMOUNT = String.raw`\$?(\d[\d,]*(?:\.\d{1,2})?)`;
// Only open invoices count, because the model fills in the amount from the list it was given.
const INVOICE = `(?:${Object.keys(OPEN_INVOICES).join('|')})`;
const INVOICE_LIST = `${INVOICE}(?:\\s*,\\s*${INVOICE}|\\s*,?\\s+and\\s+${INVOICE})*`;
const ACCOUNT = `(?:${Object.keys(ACCOUNTS).join('|')})`;
const pattern = (source: string) => new RegExp(source, 'gi');

const transfer = skill({
  tool: 'transfer_money',
  asks: [
    pattern(
      String.raw`\b(?:transfer|send|move|wire)\s+${AMOUNT}(?:\s*(?:usd|dollars))?\s+to\s+(?:the\s+|my\s+)?([\w&.-]+)`,
    ),
  ],
  calls: (match) => [{ amount: Number(match[1]?.replaceAll(',', '')), to: match[2] ?? '' }],
  args: transferParameters,
  result: transferResult,
  done: (r) => `Done: ${usd(r.amount)} went from ${r.from} to ${r.to} (reference ${r.reference}).`,
  rejected: (args) =>
    args
      ? `OK, I did not send ${usd(args.amount)} to ${args.to}: the transfer was not approved.`
      : 'OK, no money moved: the transfer was not approved.',
});

const pay = skill({
  tool: 'pay_invoice',
  asks: [pattern(String.raw`\bpay\s+(?:the\s+)?(?:invoices?\s+)?(${INVOICE_LIST})`)],
  calls: (match) =>
    [...(match[1] ?? '').matchAll(new RegExp(INVOICE, 'gi'))].map(([id]) => {
      const invoice = id.toUpperCase();
      return { invoice, amount: OPEN_INVOICES[invoice]?.amount ?? 0 };
    }),
  args: payInvoiceParameters,
  result: payInvoiceResult,
  done: (r) => `Paid ${r.invoice}: ${usd(r.amount)} to ${r.payee} (reference ${r.reference}).`,
  rejected: (args) =>
    `OK, ${args?.invoice ?? 'the invoice'} stays unpaid: the payment was not approved.`,
});

const balance = skill({
  tool: 'check_balance',
  asks: [
    pattern(String.raw`\bbalances?\b(?:\s+(?:of|for|in|on)\s+(?:my\s+|the\s+)?(${ACCOUNT}))?`),
    pattern(String.raw`\bhow much(?: money)? is (?:in|on) (?:my\s+|the\s+)?(${ACCOUNT})`),
  ],
  calls: (match) =>
    (match[1] ? [match[1].toLowerCase()] : Object.keys(ACCOUNTS)).map((account) => ({ account })),
  args: balanceParameters,
  result: balanceResult,
  done: (r) => `${r.account} holds ${usd(r.balance)}.`,
  rejected: () => 'OK, I did not look.',
});

const invoices = skill({
  tool: 'list_invoices',
  asks: [
    pattern(String.raw`\b(?:list|show)(?:\s+me)?(?:\s+(?:all|the|our|open|unpaid))*\s+invoices\b`),
    pattern(String.raw`\bwhat do we owe\b`),
  ],
  calls: () => [{}],
  args: z.object({}),
  result: listInvoicesResult,
  done: (r) =>
    `${r.invoices.length} invoices are open: ${r.invoices.map((i) => `${i.invoice} ${usd(i.amount)} to ${i.payee}`).join('; ')}.`,
  rejected: () => 'OK, I did not list them.',
});

export const PAYMENTS_SCRIPT: DemoScript = {
  skills: [transfer, pay, balance, invoices],
  help: 'I can transfer money, pay an open invoice, check a balance or list the open invoices. Try "transfer 250 to savings", "pay invoice INV-1042" or "list invoices".',
};
