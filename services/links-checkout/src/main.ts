import '@mmp/platform/service-entry';
import { runService } from '@mmp/platform';
import { linksCheckoutService } from './service.js';

runService(linksCheckoutService);
