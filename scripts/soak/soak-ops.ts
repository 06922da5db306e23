// Runs one planned operation of the soak (the executors are in soak-ops-ingest.ts, soak-ops-admin.ts, soak-ops-budgets.ts and soak-ops-spend.ts).
import {
  opAddressChange, opApprove, opArchive, opCredit, opHoldRace, opHoldRelease, opLatePrice, opPartition, opPriceChange, opRefund, opReprice, opSettlement, opWebhookMode,
} from './soak-ops-admin.js';
import type { SoakContext } from './soak-ops-context.js';
import { opBudgetHolds } from './soak-ops-budgets.js';
import { opAutoTopup, opBalanceAlerts, opTopupAnswer } from './soak-ops-spend.js';
import { opBatch, opHoldCapture, opLitellmPull, opLitellmPush, opQueue, opResponse, opSdkReport, opSingle, opStream } from './soak-ops-ingest.js';
import type { PlannedOp } from './soak-schedule.js';

export async function runOp(ctx: SoakContext, op: Exclude<PlannedOp, { op: 'drain' }>): Promise<void> {
  switch (op.op) {
    case 'single': return opSingle(ctx, op);
    case 'batch': return opBatch(ctx, op);
    case 'stream': return opStream(ctx, op);
    case 'response': return opResponse(ctx, op);
    case 'budget_holds': return opBudgetHolds(ctx, op);
    case 'queue': return opQueue(ctx, op);
    case 'litellm_push': return opLitellmPush(ctx, op);
    case 'litellm_pull': return opLitellmPull(ctx, op);
    case 'sdk_report': return opSdkReport(ctx, op);
    case 'hold_capture': return opHoldCapture(ctx, op);
    case 'hold_release': return opHoldRelease(ctx, op);
    case 'hold_race': return opHoldRace(ctx, op);
    case 'credit': return opCredit(ctx, op);
    case 'auto_topup': return opAutoTopup(ctx, op);
    case 'balance_alerts': return opBalanceAlerts(ctx, op);
    case 'topup_answer': return opTopupAnswer(ctx, op);
    case 'refund': return opRefund(ctx, op);
    case 'price_change': return opPriceChange(ctx, op);
    case 'late_price': return opLatePrice(ctx);
    case 'reprice': return opReprice(ctx);
    case 'address_change': return opAddressChange(ctx, op);
    case 'settlement': return opSettlement(ctx);
    case 'approve': return opApprove(ctx);
    case 'partition': return opPartition(ctx, op);
    case 'archive': return opArchive(ctx, op);
    case 'webhook_mode': return opWebhookMode(ctx, op);
  }
}
