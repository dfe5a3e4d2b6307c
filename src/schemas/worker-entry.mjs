// Plain JavaScript on purpose: on Node 20 a worker thread does not inherit the parent's tsx
// loader (neither through inherited execArgv nor `--import tsx`), so this entry registers tsx
// inside the worker and then loads the TypeScript worker.
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
