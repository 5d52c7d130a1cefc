import { deferOptimizer } from './idle-memory.js';

/**
 * The first import of every service's `main.ts`, so that it runs before the service's own
 * modules are loaded: see deferOptimizer. Nothing else imports it, so tests and the
 * in-process system, which load services without their `main.ts`, are left as they are.
 * A package kept outside the bundle and imported statically still loads before it (Swagger
 * UI in the gateway); loading the rest by `import()` would cover it too, but cost every
 * service 1 MB more than it saved.
 */
deferOptimizer();
