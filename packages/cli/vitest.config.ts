import { vitestConfig } from '../../vitest.shared.ts';

// The CLI tests start real child processes (pnpm, tsx); give them room on a busy machine.
export default vitestConfig({ testTimeout: 60_000 });
