import { Shell } from '../../layout';
import { NotYet } from '../stub';

export function RequestDetail(_props: { readonly requestId?: string }) {
  return (
    <Shell>
      <NotYet title="RequestDetail" />
    </Shell>
  );
}
