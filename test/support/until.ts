/** Polls `done` every `everyMs` until it holds; fails after `ms`, so a wait that never ends says so. */
export async function until(done: () => boolean | Promise<boolean>, ms = 10_000, everyMs = 25): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
