// What an address change means for payouts (api.md "Contributor trust": cool-down) and how it is
// announced. Pure; the writers call it inside the transaction that changes the address.
import type { Address } from 'viem';
import type { WebhookEventInput } from '../webhooks/webhook-outbox.service.js';

/** The instant from which the current address may be paid: its change plus the cool-down (none when never changed). */
export function payableFrom(changedAt: Date | null, cooldownHours: number): Date | null {
  if (changedAt === null || cooldownHours === 0) return null;
  return new Date(changedAt.getTime() + cooldownHours * 3600_000);
}

export interface AddressChange {
  contributorId: string;
  oldAddress: Address;
  newAddress: Address;
  proven: boolean;
  changedAt: Date;
}

/** contributor.payout_address_changed, to the admin's endpoints and the contributor's own. */
export function addressChangedEvent(change: AddressChange, cooldownHours: number): WebhookEventInput<'contributor.payout_address_changed'> {
  return {
    type: 'contributor.payout_address_changed',
    data: {
      contributor_id: change.contributorId,
      old_address: change.oldAddress,
      new_address: change.newAddress,
      proven: change.proven,
      payable_from: (payableFrom(change.changedAt, cooldownHours) ?? change.changedAt).toISOString(),
    },
    occurredAt: change.changedAt,
    contributorId: change.contributorId,
    forAdmin: true,
  };
}
