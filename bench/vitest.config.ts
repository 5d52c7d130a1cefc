import { vitestConfig } from '../vitest.shared.ts';

export default vitestConfig();
