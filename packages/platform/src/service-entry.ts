import { deferOptimizer } from './idle-memory.js';

/**
 * The first import of every service's `main.ts`, so that it runs before any other module
 * of the service is loaded: see deferOptimizer. Nothing else imports it, so tests and the
 * in-process system, which load services without their `main.ts`, are left as they are.
 */
deferOptimizer();
