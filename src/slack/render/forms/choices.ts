import { LIMITS } from '@adk-slack-approvals/block-kit';
import type { JsonValue } from '../../../json.js';
import { fitEscaped } from '../../codecs/escape.js';
import { type Choice, indexedChoices } from './field.js';

/** What a select shows for a choice: escaped, or nothing when it is blank or too long to show whole. */
export function optionLabel(choice: string | number): string | undefined {
  const shown = String(choice);
  if (shown.trim() === '') return undefined;
  const fitted = fitEscaped(shown, LIMITS.optionText);
  return fitted.cut ? undefined : fitted.text;
}

/**
 * What a list field's multi-select offers: the proposed items (selected at first), then the
 * schema's other allowed items (`items.enum`) of the same type that a select can show, so that
 * an approver may add one as well as leave one out. At most Slack's option limit.
 */
export function listChoices(
  items: readonly (string | number)[],
  allowed: readonly JsonValue[] | undefined,
): (string | number)[] {
  const kind = typeof items[0];
  const extra = (allowed ?? []).filter(
    (choice): choice is string | number =>
      typeof choice === kind &&
      !items.includes(choice as string | number) &&
      optionLabel(choice as string | number) !== undefined,
  );
  return [...items, ...extra].slice(0, LIMITS.selectOptions);
}

/** Values a select can show, by position: strings or numbers within Slack's option limit. */
export function selectable(values: readonly JsonValue[] | undefined): Choice[] | undefined {
  if (values === undefined || values.length === 0 || values.length > LIMITS.selectOptions) {
    return undefined;
  }
  const choices = values.flatMap((value) =>
    typeof value === 'string' || typeof value === 'number' ? [value] : [],
  );
  if (choices.length !== values.length) return undefined;
  if (choices.some((choice) => optionLabel(choice) === undefined)) return undefined;
  return indexedChoices(choices);
}
