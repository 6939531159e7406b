import { FunctionTool, LlmAgent } from '@google/adk';
import { z } from 'zod';
import { ScriptedLlm } from '../scripted-model/scripted-llm.js';

/**
 * App `payments`: two gated tools and one that runs without confirmation.
 *
 * Prompts (case-insensitive, anywhere in the message, several per message allowed):
 * - `transfer <amount>` → `transfer_money({amount})`, gated (`requireConfirmation: true`);
 * - `pay invoice <amount>` → `pay_invoice({amount})`, gated;
 * - `balance <account>` → `check_balance({account})`, not gated; `checking` and `savings` exist,
 *   any other account gives `{error}`;
 * - `memo: <text>` (to the end of the line) → `send_memo({text})`, gated: free text in the
 *   arguments, for cards showing whatever an agent puts there.
 */

const BALANCES: Record<string, number> = { checking: 1200, savings: 5000 };

const transferMoney = new FunctionTool({
  name: 'transfer_money',
  description: 'Transfer money to savings.',
  parameters: z.object({ amount: z.number() }),
  requireConfirmation: true,
  execute: async ({ amount }) => ({ status: 'transferred', amount }),
});

const payInvoice = new FunctionTool({
  name: 'pay_invoice',
  description: 'Pay an invoice.',
  parameters: z.object({ amount: z.number() }),
  requireConfirmation: true,
  execute: async ({ amount }) => ({ status: 'paid', amount }),
});

const sendMemo = new FunctionTool({
  name: 'send_memo',
  description: 'Send a memo to the finance team.',
  parameters: z.object({ text: z.string() }),
  requireConfirmation: true,
  execute: async ({ text }) => ({ status: 'sent', length: text.length }),
});

const checkBalance = new FunctionTool({
  name: 'check_balance',
  description: 'Read the balance of an account.',
  parameters: z.object({ account: z.string() }),
  execute: async ({ account }) => {
    const balance = BALANCES[account];
    return balance === undefined ? { error: `No account named ${account}.` } : { account, balance };
  },
});

export const rootAgent = new LlmAgent({
  name: 'payments',
  description: 'Moves money, after a human approves.',
  instruction: 'Use the tools to do what the user asks.',
  model: new ScriptedLlm([
    {
      pattern: /\btransfer \$?(\d+(?:\.\d+)?)/gi,
      toCall: (match) => ({ name: 'transfer_money', args: { amount: Number(match[1]) } }),
    },
    {
      pattern: /\bpay invoice \$?(\d+(?:\.\d+)?)/gi,
      toCall: (match) => ({ name: 'pay_invoice', args: { amount: Number(match[1]) } }),
    },
    {
      pattern: /\bmemo: (.+)$/gim,
      toCall: (match) => ({ name: 'send_memo', args: { text: String(match[1]) } }),
    },
    {
      pattern: /\bbalance (?:of )?(\w+)/gi,
      toCall: (match) => ({ name: 'check_balance', args: { account: String(match[1]) } }),
    },
  ]),
  tools: [transferMoney, payInvoice, sendMemo, checkBalance],
});
