import '@mmp/platform/service-entry';
import { runService } from '@mmp/platform';
import { providerDeliveryService } from './service.js';

runService(providerDeliveryService);
