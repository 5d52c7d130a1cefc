import { vitestConfig } from '../vitest.shared.ts';

export default vitestConfig({ testTimeout: 60_000 });
