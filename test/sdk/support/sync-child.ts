/**
 * One sync run in a process of its own, for test/sdk/sync-crash.test.ts: argv is the service's URL, a
 * member token, the state file and the step to die at (0: never). A step is an answer received (the
 * service has done the call; the run has not seen the answer) or either side of a state save; at
 * that step the process sends itself SIGKILL, the way a power cut or an OOM kill ends it.
 */
import { fileStore, Organization, sync } from '@dss/sdk';

const [baseUrl, token, statePath, dieAt] = process.argv.slice(2) as [string, string, string, string];
let steps = 0;
const step = () => {
  if (++steps === Number(dieAt)) process.kill(process.pid, 'SIGKILL');
};
const file = fileStore(statePath);
const organization = new Organization({
  baseUrl,
  token,
  fetch: async (request) => {
    const response = await fetch(request);
    const body = await response.arrayBuffer();
    step();
    return new Response(body, response);
  },
});
const store = {
  load: () => file.load(),
  save: async (state: Parameters<typeof file.save>[0]) => {
    step();
    await file.save(state);
    step();
  },
};
const result = await sync(organization, { store });
process.stdout.write(JSON.stringify({ steps, kept: result.kept, adopted: result.adopted }));
