import { Shell } from '../../layout';
import { NotYet } from '../stub';

export function Organizations(_props: { readonly requestId?: string }) {
  return (
    <Shell>
      <NotYet title="Organizations" />
    </Shell>
  );
}
