/**
 * Slack's Block Kit limits, in one place for the checker (`limits.ts`) and the builders.
 * Sources: docs.slack.dev block reference and `@slack/types` JSDoc. Where they disagree, the
 * stricter number is kept (option `value`: docs say 150, the types say 75).
 *
 * Lengths are counted in UTF-16 code units (`string.length`): Slack does not say which unit it
 * counts, and code units are never fewer than code points, so a string that passes here passes
 * there.
 */
export const LIMITS = {
  messageBlocks: 50,
  viewBlocks: 100,
  /** Top-level `text`: Slack truncates beyond this. */
  messageText: 40_000,
  /**
   * Undocumented: Slack answers `msg_blocks_too_long` once the text across a message's blocks
   * passes about 12,000 characters, even when every block is within its own limits (bolt-js#2509).
   */
  messageBlocksText: 12_000,
  /** Cumulative text of all `markdown` blocks in one payload. */
  markdownBlocksText: 12_000,
  /** `view_too_large` above 250 kB of JSON. */
  viewBytes: 250_000,
  textObject: 3000,
  sectionText: 3000,
  sectionFields: 10,
  sectionField: 2000,
  headerText: 150,
  contextElements: 10,
  actionsElements: 25,
  blockId: 255,
  actionId: 255,
  buttonText: 75,
  buttonValue: 2000,
  url: 3000,
  accessibilityLabel: 75,
  placeholder: 150,
  optionText: 75,
  optionDescription: 75,
  optionValue: 75,
  selectOptions: 100,
  optionGroups: 100,
  optionGroupLabel: 75,
  checkboxOptions: 10,
  radioOptions: 10,
  overflowOptions: 5,
  confirmTitle: 100,
  confirmText: 300,
  confirmButton: 30,
  inputLabel: 2000,
  inputHint: 2000,
  imageAltText: 2000,
  imageTitle: 2000,
  plainTextInputLength: 3000,
  modalTitle: 24,
  modalButton: 24,
  privateMetadata: 3000,
  callbackId: 255,
  externalId: 255,
} as const;
