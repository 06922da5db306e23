import type { ButtonHTMLAttributes, ReactNode } from 'react';

type PendingButtonProps = Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'children'> & {
  /** The request this button sends is on its way: the button is disabled and says so. */
  pending: boolean;
  /** What it says meanwhile ("Saving…"). */
  pendingLabel: string;
  children: ReactNode;
};

/** A button that sends one request (a mutation): it cannot be pressed twice while that is pending. */
export function PendingButton({ pending, pendingLabel, disabled, children, type = 'button', ...button }: PendingButtonProps) {
  return (
    <button type={type} disabled={pending || disabled} {...button}>
      {pending ? pendingLabel : children}
    </button>
  );
}
