import { Shell } from '../../layout';
import { Erasure } from './account/erasure';
import { Export } from './account/export';
import { Sessions } from './account/sessions';

/** Contract §11 /account: where the person is signed in, the export of everything held about them, and erasure. */
export function Account() {
  return (
    <Shell>
      <h1>Your account</h1>
      <Sessions />
      <Export />
      <Erasure />
    </Shell>
  );
}
