import { Shell } from '../../layout';
import { Documents } from './vault/documents';
import { Entities } from './vault/entities';
import { Files } from './vault/files';

/** Contract §11 /vault: the person's documents and files, each with its versions, and the legal entities they act for. */
export function Vault() {
  return (
    <Shell>
      <h1>Your vault</h1>
      <Documents />
      <Files />
      <Entities />
    </Shell>
  );
}
