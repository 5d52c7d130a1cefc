import '@mmp/platform/service-entry';
import { runService } from '@mmp/platform';
import { providerRouterService } from './service.js';

runService(providerRouterService);
