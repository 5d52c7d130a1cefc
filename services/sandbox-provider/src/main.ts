import '@mmp/platform/service-entry';
import { runService } from '@mmp/platform';
import { sandboxProviderService } from './service.js';

runService(sandboxProviderService);
