/**
 * A pattern that matches exactly the given ids and nothing else, for a Bolt constraint
 * (`action_id`, `callback_id`): one listener can then take every id a router knows.
 */
export function exactlyOneOf(ids: Iterable<string>): RegExp {
  const alternatives = [...ids].map((id) => id.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
  if (alternatives.length === 0) throw new Error('a router needs at least one id');
  return new RegExp(`^(?:${alternatives.join('|')})$`);
}
