import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { isJsonObject, type Json, jsonSchema } from './json.js';

/**
 * Structural queries over Block Kit JSON that the sandbox needs to behave like Slack: ids Slack
 * assigns, the interactive element a click names, and the input blocks of a modal. Limits and
 * validity are `checkMessage`/`checkView`'s job, not this file's.
 */

const textSchema = z.looseObject({
  type: z.string(),
  text: z.string(),
  emoji: z.boolean().optional(),
});

export const optionSchema = z.looseObject({
  text: textSchema,
  value: z.string(),
  description: textSchema.optional(),
  url: z.string().optional(),
});
export type BlockOption = z.infer<typeof optionSchema>;

export const elementSchema = z.looseObject({
  type: z.string(),
  action_id: z.string(),
  text: textSchema.optional(),
  value: z.string().optional(),
  style: z.string().optional(),
  url: z.string().optional(),
  options: z.array(optionSchema).optional(),
  option_groups: z.array(z.looseObject({ options: z.array(optionSchema) })).optional(),
  initial_option: optionSchema.optional(),
  initial_options: z.array(optionSchema).optional(),
  initial_value: z.string().optional(),
  placeholder: textSchema.optional(),
  min_length: z.number().optional(),
  max_length: z.number().optional(),
  is_decimal_allowed: z.boolean().optional(),
  min_value: z.string().optional(),
  max_value: z.string().optional(),
  max_selected_items: z.number().optional(),
});
export type BlockElement = z.infer<typeof elementSchema>;

const blockSchema = z.looseObject({
  type: z.string(),
  block_id: z.string(),
  elements: z.array(jsonSchema).optional(),
  accessory: jsonSchema.optional(),
  element: jsonSchema.optional(),
  optional: z.boolean().optional(),
  label: textSchema.optional(),
});

/** Slack's generated block ids look like `Ao8Kx`: a few letters and digits. */
function generatedId(): string {
  return randomBytes(4).toString('base64url').slice(0, 5);
}

/** Where a block holds interactive elements. */
function elementSlots(block: { [key: string]: Json }): Json[] {
  switch (block.type) {
    case 'actions':
      return Array.isArray(block.elements) ? block.elements : [];
    case 'section':
      return block.accessory === undefined ? [] : [block.accessory];
    case 'input':
      return block.element === undefined ? [] : [block.element];
    default:
      return [];
  }
}

/**
 * Blocks as Slack stores them: every block gets a `block_id` and every interactive element an
 * `action_id` when the app gave none (Slack generates both, and payloads always carry them).
 */
export function withGeneratedIds(blocks: readonly Json[]): Json[] {
  return blocks.map((original) => {
    const block = structuredClone(original);
    if (!isJsonObject(block)) return block;
    if (typeof block.block_id !== 'string') block.block_id = generatedId();
    for (const element of elementSlots(block)) {
      if (isJsonObject(element) && typeof element.action_id !== 'string') {
        element.action_id = generatedId();
      }
    }
    return block;
  });
}

export interface FoundElement {
  blockId: string;
  blockType: string;
  element: BlockElement;
}

/** Every interactive element in the blocks, with the block that holds it. */
export function interactiveElements(blocks: readonly Json[]): FoundElement[] {
  const found: FoundElement[] = [];
  for (const raw of blocks) {
    if (!isJsonObject(raw)) continue;
    const block = blockSchema.safeParse(raw);
    if (!block.success) continue;
    for (const slot of elementSlots(raw)) {
      const element = elementSchema.safeParse(slot);
      if (element.success) {
        found.push({
          blockId: block.data.block_id,
          blockType: block.data.type,
          element: element.data,
        });
      }
    }
  }
  return found;
}

/** The element a click names: by action id, and by block id too when given (action ids repeat across blocks). */
export function findElement(
  blocks: readonly Json[],
  where: { actionId: string; blockId?: string | undefined },
): FoundElement | undefined {
  return interactiveElements(blocks).find(
    (found) =>
      found.element.action_id === where.actionId &&
      (where.blockId === undefined || found.blockId === where.blockId),
  );
}

export interface InputBlock {
  blockId: string;
  label: string;
  optional: boolean;
  element: BlockElement;
}

/** The input blocks of a modal, in order. */
export function inputBlocks(blocks: readonly Json[]): InputBlock[] {
  const inputs: InputBlock[] = [];
  for (const raw of blocks) {
    const block = blockSchema.safeParse(raw);
    if (!block.success || block.data.type !== 'input') continue;
    const element = elementSchema.safeParse(block.data.element);
    if (!element.success) continue;
    inputs.push({
      blockId: block.data.block_id,
      label: block.data.label?.text ?? '',
      optional: block.data.optional ?? false,
      element: element.data,
    });
  }
  return inputs;
}

/** All options of a select-like element, including those inside option groups. */
export function optionsOf(element: BlockElement): BlockOption[] {
  return [
    ...(element.options ?? []),
    ...(element.option_groups ?? []).flatMap((group) => group.options),
  ];
}
