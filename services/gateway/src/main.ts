import '@mmp/platform/service-entry';
import { runService } from '@mmp/platform';
import { gatewayService } from './service.js';

runService(gatewayService);
