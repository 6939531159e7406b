import { z } from 'zod';
import { jsonValueSchema } from '../../../json.js';

/**
 * What the answer form reads of an input request's JSON Schema (`response_schema`): an object's
 * properties, and each property's keywords the form understands. The agent sent the schema, so
 * it is parsed here, leniently: a property it cannot read becomes a JSON field, and the whole
 * answer is still checked against the whole schema (input-checks.ts).
 */

/** The JSON Schema keywords the form understands; others are left to the final check. */
export const propertySchema = z.looseObject({
  type: z.union([z.string(), z.array(z.string())]).optional(),
  title: z.string().optional(),
  description: z.string().optional(),
  format: z.string().optional(),
  enum: z.array(jsonValueSchema).optional(),
  default: jsonValueSchema.optional(),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  exclusiveMinimum: z.number().optional(),
  exclusiveMaximum: z.number().optional(),
  minLength: z.number().int().min(0).optional(),
  maxLength: z.number().int().min(0).optional(),
  pattern: z.string().optional(),
  minItems: z.number().int().min(0).optional(),
  maxItems: z.number().int().min(0).optional(),
  items: z.looseObject({ enum: z.array(jsonValueSchema).optional() }).optional(),
});
export type PropertySchema = z.infer<typeof propertySchema>;

export const objectSchema = z.looseObject({
  type: z.literal('object').optional(),
  properties: z.record(z.string(), jsonValueSchema),
  required: z.array(z.string()).optional(),
});
