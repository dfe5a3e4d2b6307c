/** A page not built yet (its own file replaces this one). */
export function NotYet({ title }: { readonly title: string }) {
  return (
    <>
      <h1>{title}</h1>
      <p>This page is not here yet.</p>
    </>
  );
}
