/**
 * A runbook's prompt: text with `{{labels.<name>}}`, `{{annotations.<name>}}`, `{{status}}` and
 * `{{fingerprint}}` filled in from the alert. Compiled when the runbooks file loads, so that a
 * placeholder nobody fills (`{{label.service}}`, `{{summary}}`) is refused there, with its line,
 * instead of reaching an agent as text. Filled values are left as they are: the prompt goes to
 * the agent as written, and is escaped where it is shown in Slack (`slack/render/thread.ts`).
 */

/** What fills a prompt: one alert, its labels already merged with the group's. */
export interface AlertFacts {
  status: 'firing' | 'resolved';
  fingerprint: string;
  labels: Readonly<Record<string, string>>;
  annotations: Readonly<Record<string, string>>;
}

type Piece =
  | { kind: 'text'; text: string }
  | { kind: 'label' | 'annotation'; name: string }
  | { kind: 'status' | 'fingerprint' };

export interface PromptTemplate {
  readonly source: string;
  fill(alert: AlertFacts): string;
}

export type TemplateResult = { ok: true; template: PromptTemplate } | { ok: false; error: string };

/** Prometheus label names; annotation names follow the same rule. */
const NAME = '[A-Za-z_][A-Za-z0-9_]*';
const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const LABEL = new RegExp(`^labels\\.(${NAME})$`);
const ANNOTATION = new RegExp(`^annotations\\.(${NAME})$`);

export const PLACEHOLDERS =
  '{{labels.<name>}}, {{annotations.<name>}}, {{status}} or {{fingerprint}}';

export function compilePromptTemplate(source: string): TemplateResult {
  const pieces: Piece[] = [];
  let last = 0;
  for (const match of source.matchAll(PLACEHOLDER)) {
    const inner = match[1] ?? '';
    if (match.index > last) pieces.push({ kind: 'text', text: source.slice(last, match.index) });
    last = match.index + match[0].length;
    const label = LABEL.exec(inner);
    const annotation = ANNOTATION.exec(inner);
    if (label?.[1] !== undefined) pieces.push({ kind: 'label', name: label[1] });
    else if (annotation?.[1] !== undefined)
      pieces.push({ kind: 'annotation', name: annotation[1] });
    else if (inner === 'status' || inner === 'fingerprint') pieces.push({ kind: inner });
    else return { ok: false, error: `unknown placeholder {{${inner}}}: expected ${PLACEHOLDERS}` };
  }
  if (last < source.length) pieces.push({ kind: 'text', text: source.slice(last) });
  if (pieces.some((piece) => piece.kind === 'text' && /\{\{|\}\}/.test(piece.text))) {
    return { ok: false, error: `an unclosed "{{" or a stray "}}": expected ${PLACEHOLDERS}` };
  }
  return {
    ok: true,
    template: {
      source,
      fill: (alert) => pieces.map((piece) => filledPiece(piece, alert)).join(''),
    },
  };
}

/** A label or annotation the alert lacks fills in as empty, as in Alertmanager's templates. */
function filledPiece(piece: Piece, alert: AlertFacts): string {
  switch (piece.kind) {
    case 'text':
      return piece.text;
    case 'label':
      return alert.labels[piece.name] ?? '';
    case 'annotation':
      return alert.annotations[piece.name] ?? '';
    case 'status':
      return alert.status;
    case 'fingerprint':
      return alert.fingerprint;
  }
}
