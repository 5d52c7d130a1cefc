import { runService } from '@mmp/platform';
import { customersService } from './service.js';

runService(customersService);
