import type { PauseNotes } from '../../records.js';
import type { NoteAuditEntry } from '../rules.js';
import type { PauseRun } from './prelude.js';

/**
 * Twin of scripts/add-note.lua.ts: records a note beside a pause, with an entry in its trail.
 * `callId`, when given, must name a gate of the pause.
 */
export function addNote(
  run: PauseRun,
  notes: PauseNotes,
  write: (notes: PauseNotes) => void,
  audit: NoteAuditEntry,
  callId: string | undefined,
): 'recorded' | 'unknown_gate' {
  if (callId !== undefined && run.gate(callId) === undefined) return 'unknown_gate';
  write(notes);
  run.audit(audit.event, audit.actor, audit.callId ?? '', audit.detail);
  return 'recorded';
}
