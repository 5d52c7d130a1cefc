import '@mmp/platform/service-entry';
import { runService } from '@mmp/platform';
import { certificationRunnerService } from './service.js';

runService(certificationRunnerService);
