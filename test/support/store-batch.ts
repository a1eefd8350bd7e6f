import type { StoreBatch } from '../../state/store-port.js';

/** The batch with its `write` going through `hook` (which calls `write` to apply it, or throws instead). */
export function hookWrite(batch: StoreBatch, hook: (write: () => Promise<void>) => Promise<void>): StoreBatch {
  return {
    put: (key, value) => batch.put(key, value),
    del: (key) => batch.del(key),
    get length() {
      return batch.length;
    },
    discard: () => batch.discard(),
    write: () => hook(() => batch.write()),
  };
}
