import type { SandboxState } from '../state.js';

export interface WebApiContext {
  state: SandboxState;
  /** The sandbox's own origin, e.g. `http://127.0.0.1:3001`, for permalinks. */
  baseUrl: string;
}
