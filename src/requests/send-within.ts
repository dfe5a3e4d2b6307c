import type { SendRequest } from '../commands/requests/send-request.js';
import { requestDecider } from '../commands/requests/request-decider.js';
import { isRefusal, type Refusal } from '../commands/refusal.js';
import { handle, type CommandDeps } from '../commands/shell.js';
import type { EventContext } from '../events/envelope.js';
import { requestStream } from '../events/request-events.js';

/** The slots a new request takes in its sender's limits, and how to give them back. */
export type SendSlots = { readonly reserve: () => Promise<Refusal | null>; readonly release: () => Promise<void> };

/**
 * A new request, sent within its sender's limits (R-LIM-16, invitations' limits): the slots are
 * taken before anything is written, and given back unless the request was sent (refused or failed).
 */
export async function sendWithin(deps: CommandDeps, slots: SendSlots, data: SendRequest, context: EventContext): Promise<Refusal | null> {
  const limited = await slots.reserve();
  if (limited) return limited;
  let sent = false;
  try {
    const done = await handle(
      deps,
      requestStream(data.requestId),
      requestDecider,
      { type: 'SendRequest', data },
      { context, newStream: true },
    );
    if (isRefusal(done)) return done;
    sent = true;
    return null;
  } finally {
    if (!sent) await slots.release();
  }
}
