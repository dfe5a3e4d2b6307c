import { Shell } from '../../layout';
import { NotYet } from '../stub';

export function Vault(_props: { readonly requestId?: string }) {
  return (
    <Shell>
      <NotYet title="Vault" />
    </Shell>
  );
}
