import { runService } from '@mmp/platform';
import { paymentsService } from './service.js';

runService(paymentsService);
