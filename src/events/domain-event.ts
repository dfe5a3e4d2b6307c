import type { JsonObject } from './envelope.js';

/** What a decision produces: an event's type and data; the shell adds the envelope. */
export type DomainEvent<T extends string = string, D extends JsonObject = JsonObject> = { readonly type: T; readonly data: D };
