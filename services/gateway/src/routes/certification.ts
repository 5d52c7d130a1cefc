import type { ForwardedRoute } from './route.js';

export const certificationRoutes: ForwardedRoute[] = [];
