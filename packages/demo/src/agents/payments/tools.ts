import { FunctionTool } from '@google/adk';
import { z } from 'zod';
import { ACCOUNTS, OPEN_INVOICES, paymentReference, usd } from './books.js';

/**
 * The payments desk's tools. They answer like a bank would and move nothing. Each result schema
 * is also what the scripted model reads back (see `script.ts`).
 */

export const transferParameters = z.object({
  amount: z.number().positive().describe('US dollars.'),
  to: z.string().describe('The account or payee that receives the money, e.g. savings.'),
});
export const transferResult = z.object({
  status: z.literal('transferred'),
  amount: z.number(),
  from: z.string(),
  to: z.string(),
  reference: z.string(),
});

export const transferMoney = new FunctionTool({
  name: 'transfer_money',
  description: 'Move money out of the checking account. Always needs approval.',
  parameters: transferParameters,
  requireConfirmation: true,
  execute: ({ amount, to }) => {
    const available = ACCOUNTS.checking ?? 0;
    if (amount > available) return { error: `Checking holds only ${usd(available)}.` };
    return {
      status: 'transferred',
      amount,
      from: 'checking',
      to,
      reference: paymentReference('TR', [amount, to]),
    } satisfies z.infer<typeof transferResult>;
  },
});

/** Invoices up to this amount are paid without asking anyone. */
export const UNATTENDED_INVOICE_LIMIT = 500;

export const payInvoiceParameters = z.object({
  invoice: z.string().describe('The invoice number, e.g. INV-1042.'),
  amount: z.number().positive().describe('The amount due, in US dollars.'),
});
export const payInvoiceResult = z.object({
  status: z.literal('paid'),
  invoice: z.string(),
  payee: z.string(),
  amount: z.number(),
  reference: z.string(),
});

export const payInvoice = new FunctionTool({
  name: 'pay_invoice',
  description: `Pay an open invoice from checking. Needs approval above ${usd(UNATTENDED_INVOICE_LIMIT)}.`,
  parameters: payInvoiceParameters,
  requireConfirmation: ({ amount }) => amount > UNATTENDED_INVOICE_LIMIT,
  execute: ({ invoice, amount }) => {
    const open = OPEN_INVOICES[invoice];
    if (!open) return { error: `There is no open invoice ${invoice}.` };
    if (open.amount !== amount) {
      return { error: `${invoice} is for ${usd(open.amount)}, not ${usd(amount)}.` };
    }
    return {
      status: 'paid',
      invoice,
      payee: open.payee,
      amount,
      reference: paymentReference('PY', [invoice, amount]),
    } satisfies z.infer<typeof payInvoiceResult>;
  },
});

export const balanceParameters = z.object({
  account: z.string().describe('checking or savings.'),
});
export const balanceResult = z.object({ account: z.string(), balance: z.number() });

export const checkBalance = new FunctionTool({
  name: 'check_balance',
  description: 'Read the balance of an account (checking or savings).',
  parameters: balanceParameters,
  execute: ({ account }) => {
    const balance = ACCOUNTS[account];
    if (balance === undefined) return { error: `There is no account named ${account}.` };
    return { account, balance } satisfies z.infer<typeof balanceResult>;
  },
});

export const listInvoicesResult = z.object({
  invoices: z.array(z.object({ invoice: z.string(), payee: z.string(), amount: z.number() })),
});

export const listInvoices = new FunctionTool({
  name: 'list_invoices',
  description: 'List the open invoices.',
  execute: () =>
    ({
      invoices: Object.entries(OPEN_INVOICES).map(([invoice, { payee, amount }]) => ({
        invoice,
        payee,
        amount,
      })),
    }) satisfies z.infer<typeof listInvoicesResult>,
});
