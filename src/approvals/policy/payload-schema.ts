import { z } from 'zod';
import type { JsonValue } from '../../json.js';

/**
 * What a policy rule may say about a tool's payload (`payloadSchema`): a small, strict subset of
 * JSON Schema, enough for an approver's form to refuse what the tool would refuse. Unknown
 * keywords are errors in the policy file, not silently ignored checks: a schema that looks like
 * it limits an amount must limit it.
 *
 * Supported: `type` (string, number, integer, boolean, array, object), `title`, `description`,
 * `enum`, `minimum`, `maximum`, `minLength`, `maxLength`, `pattern`, `format` (`date-time`,
 * `date`), `items`, `minItems`, `maxItems`, `properties`, `required`.
 */

const SCALAR_TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object'] as const;
export type PayloadSchemaType = (typeof SCALAR_TYPES)[number];

export interface PayloadSchema {
  type?: PayloadSchemaType;
  title?: string;
  description?: string;
  enum?: (string | number | boolean)[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: 'date-time' | 'date';
  items?: PayloadSchema;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, PayloadSchema>;
  required?: string[];
}

const count = z.number().int().min(0);

export const payloadSchemaSchema: z.ZodType<PayloadSchema> = z.lazy(() =>
  z
    .strictObject({
      type: z.enum(SCALAR_TYPES).optional(),
      title: z.string().min(1).max(150).optional(),
      description: z.string().max(300).optional(),
      enum: z
        .array(z.union([z.string(), z.number(), z.boolean()]))
        .min(1)
        .max(100)
        .optional(),
      minimum: z.number().optional(),
      maximum: z.number().optional(),
      minLength: count.optional(),
      maxLength: count.optional(),
      pattern: z
        .string()
        .refine(compiles, { error: 'expected a regular expression that compiles' })
        .optional(),
      format: z.enum(['date-time', 'date']).optional(),
      items: payloadSchemaSchema.optional(),
      minItems: count.optional(),
      maxItems: count.optional(),
      properties: z.record(z.string(), payloadSchemaSchema).optional(),
      required: z.array(z.string()).optional(),
    })
    .refine((node) => !(node.required && !node.properties), {
      error: 'required names properties: give properties too',
    }),
);

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}

/** `2026-11-23T22:00:00Z`, with optional fractions and an offset: what tools call ISO 8601 UTC. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** What is wrong with `value` under `schema`, in words for the person filling the form; none: fine. */
export function payloadProblem(schema: PayloadSchema, value: JsonValue): string | undefined {
  const typeProblem = schema.type === undefined ? undefined : wrongType(schema.type, value);
  if (typeProblem) return typeProblem;
  if (schema.enum !== undefined && !schema.enum.some((allowed) => allowed === value)) {
    return `Choose one of: ${schema.enum.map((item) => String(item)).join(', ')}.`;
  }
  if (typeof value === 'number') return numberProblem(schema, value);
  if (typeof value === 'string') return stringProblem(schema, value);
  if (Array.isArray(value)) return listProblem(schema, value);
  if (value !== null && typeof value === 'object') {
    const [first] = Object.entries(objectProblems(schema, value));
    return first === undefined ? undefined : `${first[0]}: ${first[1]}`;
  }
  return undefined;
}

/** Problems of an object's own properties, by property name (missing required ones included). */
export function objectProblems(
  schema: PayloadSchema,
  value: { [key: string]: JsonValue },
): Record<string, string> {
  const problems: Record<string, string> = {};
  for (const key of schema.required ?? []) {
    const present = value[key];
    if (present === undefined || present === null || present === '') {
      problems[key] = 'Required.';
    }
  }
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    const present = value[key];
    if (present === undefined || problems[key] !== undefined) continue;
    // An optional text left empty is "not given", not a value to check.
    if (present === '' && !(schema.required ?? []).includes(key)) continue;
    const problem = payloadProblem(property, present);
    if (problem) problems[key] = problem;
  }
  return problems;
}

function wrongType(type: PayloadSchemaType, value: JsonValue): string | undefined {
  switch (type) {
    case 'string':
      return typeof value === 'string' ? undefined : 'Enter text.';
    case 'number':
      return typeof value === 'number' ? undefined : 'Enter a number.';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value)
        ? undefined
        : 'Enter a whole number.';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'Choose yes or no.';
    case 'array':
      return Array.isArray(value) ? undefined : 'Expected a list.';
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value)
        ? undefined
        : 'Expected an object.';
  }
}

function numberProblem(schema: PayloadSchema, value: number): string | undefined {
  const { minimum, maximum } = schema;
  if (minimum !== undefined && maximum !== undefined && (value < minimum || value > maximum)) {
    return `Enter a number from ${minimum} to ${maximum}.`;
  }
  if (minimum !== undefined && value < minimum) return `Enter ${minimum} or more.`;
  if (maximum !== undefined && value > maximum) return `Enter ${maximum} or less.`;
  return undefined;
}

function stringProblem(schema: PayloadSchema, value: string): string | undefined {
  if (schema.minLength !== undefined && value.length < schema.minLength) {
    return `Enter at least ${schema.minLength} characters.`;
  }
  if (schema.maxLength !== undefined && value.length > schema.maxLength) {
    return `Enter at most ${schema.maxLength} characters.`;
  }
  if (schema.format === 'date-time' && !isDateTime(value)) {
    return 'Enter a date and time such as 2026-11-23T22:00:00Z.';
  }
  if (schema.format === 'date' && !isDate(value)) {
    return 'Enter a date such as 2026-11-23.';
  }
  if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) {
    return `Does not have the expected form (${schema.pattern}).`;
  }
  return undefined;
}

export function isDateTime(value: string): boolean {
  return DATE_TIME.test(value) && !Number.isNaN(Date.parse(value));
}

export function isDate(value: string): boolean {
  return DATE.test(value) && !Number.isNaN(Date.parse(value));
}

function listProblem(schema: PayloadSchema, value: JsonValue[]): string | undefined {
  if (schema.minItems !== undefined && value.length < schema.minItems) {
    return schema.minItems === 1 ? 'Choose at least one.' : `Choose at least ${schema.minItems}.`;
  }
  if (schema.maxItems !== undefined && value.length > schema.maxItems) {
    return `Choose at most ${schema.maxItems}.`;
  }
  if (schema.items !== undefined) {
    for (const item of value) {
      const problem = payloadProblem(schema.items, item);
      if (problem) return `${JSON.stringify(item)}: ${problem}`;
    }
  }
  return undefined;
}
