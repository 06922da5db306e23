import { readFileSync } from 'node:fs';
import { WEBHOOK_EVENT_EXAMPLES, WEBHOOK_EVENT_SCHEMAS, WEBHOOK_EVENT_TYPES, webhookEventJsonSchemas } from './webhook-event-types.js';

const API_MD_TYPES = [
  'settlement.created', 'settlement.pending_approval', 'settlement.confirmed', 'settlement.partially_failed', 'settlement.failed',
  'payout.paid', 'payout.failed', 'payout.reorged', 'hold.expired', 'user.balance_low', 'usage.unpriced', 'refund.created', 'ledger.check_failed',
  'contributor.payout_address_changed', 'contributor.usage_anomaly',
  // Spend controls (api.md "Spend controls (users)").
  'user.budget_threshold_crossed', 'user.balance_threshold_crossed', 'user.topup_requested', 'user.topup_disabled',
];

describe('webhook event types', () => {
  it('are exactly the types of api.md', () => {
    expect([...WEBHOOK_EVENT_TYPES].sort()).toEqual([...API_MD_TYPES].sort());
  });

  it('each have an example that matches their schema, and a JSON Schema', () => {
    for (const type of WEBHOOK_EVENT_TYPES) expect({ type, ok: WEBHOOK_EVENT_SCHEMAS[type].safeParse(WEBHOOK_EVENT_EXAMPLES[type]).success }).toEqual({ type, ok: true });
    for (const entry of webhookEventJsonSchemas()) expect(entry.schema).toMatchObject({ type: 'object', properties: expect.any(Object) });
  });

  it('are all listed in docs/webhooks.md with their example delivery body', () => {
    const doc = readFileSync(new URL('../../../docs/webhooks.md', import.meta.url), 'utf8');
    for (const { type, example } of webhookEventJsonSchemas()) {
      const section = new RegExp('### `' + type.replace('.', '\\.') + '`\\s+```json\\n([\\s\\S]*?)\\n```').exec(doc);
      expect({ type, documented: section !== null }).toEqual({ type, documented: true });
      expect(JSON.parse(section![1]!)).toEqual(example);
      // And in the table of when each is emitted, above the examples.
      expect(doc.slice(0, doc.indexOf('## Examples'))).toContain(`\`${type}\``);
    }
  });
});
