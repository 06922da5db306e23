import { Module } from '@nestjs/common';
import { PricingController } from './pricing.controller.js';
import { PricingRepository } from './pricing.repository.js';
import { PricingService } from './pricing.service.js';

/** The price catalog: versioned official prices and the in-memory book the ingestion path reads. */
@Module({
  controllers: [PricingController],
  providers: [PricingRepository, PricingService],
  exports: [PricingService],
})
export class PricingModule {}
