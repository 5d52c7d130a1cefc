import { watchIdleMemory, heapSpace, youngGenerationBytes } from '../src/idle-memory.js';

function heap() {
  const old = heapSpace('old_space');
  return { young: youngGenerationBytes(), old: old.space_used_size, oldCommitted: old.space_size };
}

watchIdleMemory(Number(process.env.CHECK_EVERY_MS));

// Then a burst of objects that survive a collection or two, as a burst of requests makes:
// it grows V8's young generation and leaves garbage in the old one, among the third that
// stays (as a cache would), so hardly a page of it is all garbage. Then the process does
// nothing, as a service between bursts.
let survivors: unknown[][] = [];
const kept: unknown[][] = [];
for (let i = 0; i < 600; i++) {
  const survivor = new Array(10_000).fill({ i });
  survivors.push(survivor);
  if (i % 3 === 0) kept.push(survivor);
  if (survivors.length > 200) survivors.shift();
}
survivors = [];
const grown = heap();
setTimeout(() => {
  process.stdout.write(`${JSON.stringify({ grown, idle: heap(), keptBytes: kept.length * 10_000 * 8 })}\n`);
}, Number(process.env.IDLE_MS));
