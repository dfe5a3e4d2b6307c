import { useState, type ReactNode } from 'react';

type Props = {
  /** The id of what the button shows, for aria-controls. */
  readonly id: string;
  /** The button's label: what it opens ("Publish a new version"). */
  readonly label: ReactNode;
  readonly className?: string;
  /** What the button shows and hides, mostly a form; `close` hides it again once it is done. */
  readonly children: (close: () => void) => ReactNode;
};

/** A button that shows and hides what it controls (aria-expanded), such as a form that is not always wanted. */
export function Disclosure({ id, label, className, children }: Props) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className="secondary" aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
        {label}
      </button>
      {open && (
        <div id={id} className={className}>
          {children(() => setOpen(false))}
        </div>
      )}
    </>
  );
}
