import type { JsonObject } from '../json.js';

/**
 * Where any part of the sandbox raises an Events API event for the app (a person's message, the
 * app's own post, an App Home being opened). The server connects it to the delivery, which sends
 * it over HTTP or the Socket Mode connection, whichever the app uses.
 */
export class EventOutbox {
  private readonly listeners = new Set<(event: JsonObject) => void>();

  emit(event: JsonObject): void {
    for (const listener of [...this.listeners]) listener(event);
  }

  subscribe(listener: (event: JsonObject) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }
}
