import { z } from 'zod';
import type { JsonValue } from '../../../json.js';
import type { ValueCheck } from './read-form.js';
import type { PropertySchema } from './response-schema.js';

/**
 * An input request's own checks: each field against its property's limits, in words a person can
 * act on, then the whole answer against the schema with the JSON Schema reader ADK JS uses
 * (`z.fromJSONSchema`), so that an answer this form accepts is one the agent server accepts.
 */

/** The property's limits on a value read, by the value's type; `undefined`: fine. */
export function propertyCheck(schema: PropertySchema): (value: JsonValue) => string | undefined {
  return (value) => {
    if (typeof value === 'string') return textProblem(schema, value);
    if (typeof value === 'number') return numberProblem(schema, value);
    if (Array.isArray(value)) return countProblem(schema, value.length);
    return undefined;
  };
}

function textProblem(schema: PropertySchema, text: string): string | undefined {
  const { minLength, maxLength, pattern } = schema;
  if (minLength !== undefined && text.length < minLength) {
    return `Enter at least ${minLength} characters.`;
  }
  if (maxLength !== undefined && text.length > maxLength) {
    return `Enter at most ${maxLength} characters.`;
  }
  if (pattern !== undefined && !matches(pattern, text)) {
    return `The answer must match the pattern ${pattern}.`;
  }
  return undefined;
}

/** JSON Schema patterns are unanchored ECMAScript expressions; one that does not compile fails. */
function matches(pattern: string, text: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(text);
  } catch {
    return false;
  }
}

function numberProblem(schema: PropertySchema, value: number): string | undefined {
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = schema;
  if (minimum !== undefined && value < minimum) return `Enter ${minimum} or more.`;
  if (maximum !== undefined && value > maximum) return `Enter ${maximum} or less.`;
  if (exclusiveMinimum !== undefined && value <= exclusiveMinimum) {
    return `Enter more than ${exclusiveMinimum}.`;
  }
  if (exclusiveMaximum !== undefined && value >= exclusiveMaximum) {
    return `Enter less than ${exclusiveMaximum}.`;
  }
  return undefined;
}

function countProblem({ minItems, maxItems }: PropertySchema, count: number): string | undefined {
  if (minItems !== undefined && count < minItems) return `Choose at least ${minItems}.`;
  if (maxItems !== undefined && count > maxItems) return `Choose at most ${maxItems}.`;
  return undefined;
}

/** The whole answer against the schema, as ADK JS will check it; issues land on their field. */
export function answerCheck(responseSchema: JsonValue | undefined): ValueCheck | undefined {
  const validator = compile(responseSchema);
  if (validator === undefined) return undefined;
  return (answer) => {
    const result = validator.safeParse(answer);
    if (result.success) return [];
    return result.error.issues.map(({ path, message }) => {
      const [first] = path;
      return typeof first === 'string' ? { key: first, message } : { message };
    });
  };
}

/** ADK JS reads the schema with `z.fromJSONSchema` and skips the check when that fails. */
function compile(responseSchema: JsonValue | undefined): z.ZodType | undefined {
  if (typeof responseSchema !== 'object' || responseSchema === null) return undefined;
  if (Array.isArray(responseSchema)) return undefined;
  try {
    return z.fromJSONSchema(responseSchema);
  } catch {
    return undefined;
  }
}
