import '@mmp/platform/service-entry';
import { runService } from '@mmp/platform';
import { paymentsService } from './service.js';

runService(paymentsService);
