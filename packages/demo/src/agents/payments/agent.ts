import { LlmAgent } from '@google/adk';
import { demoModel } from '../../demo-model.js';
import { OPEN_INVOICES, usd } from './books.js';
import { PAYMENTS_SCRIPT } from './script.js';
import {
  checkBalance,
  listInvoices,
  payInvoice,
  transferMoney,
  UNATTENDED_INVOICE_LIMIT,
} from './tools.js';

const invoiceLines = Object.entries(OPEN_INVOICES)
  .map(([id, invoice]) => `- ${id}: ${usd(invoice.amount)} to ${invoice.payee}, due ${invoice.due}`)
  .join('\n');

/**
 * Demo app `payments`: a payments desk. Transfers always need approval, invoices above $500 do;
 * balances and the invoice list run at once. Prompts the offline model understands:
 * `transfer 250 to savings`, `pay invoice INV-1042` (gated), `pay invoice INV-1043` (not gated),
 * `balance of checking`, `list invoices`.
 */
export const rootAgent = new LlmAgent({
  name: 'payments',
  description: 'Moves money and pays invoices; a human approves the risky ones.',
  instruction: `You run the payments desk from the checking account. Open invoices:
${invoiceLines}
Use the tools to do what the user asks; pay an invoice with the amount listed above.
Transfers always need a human's approval, and invoices do above ${usd(UNATTENDED_INVOICE_LIMIT)}: the tools ask for it, so just call them.
After a tool result, answer in one or two friendly sentences that include the result.
If a call was rejected, acknowledge it and do not retry it.
When the user relays feedback from the approvers, acknowledge it and quote their reason.
If you cannot help, say briefly what you can do.`,
  model: demoModel(PAYMENTS_SCRIPT),
  tools: [transferMoney, payInvoice, checkBalance, listInvoices],
});
