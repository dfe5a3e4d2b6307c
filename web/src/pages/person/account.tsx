import { Shell } from '../../layout';
import { NotYet } from '../stub';

export function Account(_props: { readonly requestId?: string }) {
  return (
    <Shell>
      <NotYet title="Account" />
    </Shell>
  );
}
