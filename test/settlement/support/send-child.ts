// Runs one payout send in its own process (the API module graph, no HTTP server), configured from
// the environment the test passes. With PAYOUT_CRASH_AFTER_BROADCAST=1 it exits 137 mid-send.
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from '../../../src/app.module.js';
import { PayoutSenderService } from '../../../src/modules/settlement/payout/payout-sender.service.js';

const settlementId = process.argv[2];
if (!settlementId) throw new Error('usage: send-child.ts <settlement id>');
const app = await NestFactory.createApplicationContext(AppModule.forRoot(), { logger: ['error'] });
const outcome = await app.get(PayoutSenderService).sendSettlement(settlementId);
process.stdout.write(`${JSON.stringify(outcome)}\n`);
await app.close();
