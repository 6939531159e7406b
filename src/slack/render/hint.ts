/**
 * ADK's own hint for a `requireConfirmation` tool (the same words in ADK JS and Python) tells a
 * developer how to answer over the API; an approver learns nothing from it, so cards leave it out.
 */
const ADK_DEFAULT_HINT =
  /^Please approve or reject the tool call \S+\(\) by responding with a FunctionResponse with an expected ToolConfirmation payload\.$/;

/** The hint worth showing a person, or undefined. */
export function displayHint(hint: string | undefined): string | undefined {
  const trimmed = hint?.trim();
  if (!trimmed || ADK_DEFAULT_HINT.test(trimmed)) return undefined;
  return trimmed;
}
