import type { StorePort } from '../../state/store-port.js';
import { memoryStore } from './memory-store.js';

/**
 * A memory store that counts what is read: every key read (`reads`, one by one or in a multi-get), the
 * keys read one by one (`gets`) and the multi-gets made (`multiGets`).
 */
export function countingStore(): { store: StorePort; reads: string[]; gets: string[]; multiGets: number } {
  const inner = memoryStore();
  const counts = { store: inner, reads: [] as string[], gets: [] as string[], multiGets: 0 };
  counts.store = {
    ...inner,
    async get(key) {
      counts.reads.push(key);
      counts.gets.push(key);
      return inner.get(key);
    },
    async getMany(keys) {
      counts.reads.push(...keys);
      counts.multiGets++;
      return inner.getMany(keys);
    },
  };
  return counts;
}
