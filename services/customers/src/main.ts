import '@mmp/platform/service-entry';
import { runService } from '@mmp/platform';
import { customersService } from './service.js';

runService(customersService);
