/**
 * The k-way merge behind the embedded log's consume: partition cursors ordered by the timestamp of
 * their head record, ties broken by assignment order (topic order as given, then partition). Only heads
 * are compared, so each partition's own records keep their log order even when timestamps go back.
 */
import type { LogRecord } from '../log-port.js';

/** What the merge needs of a partition cursor: its rank in assignment order and its buffered records. */
export interface MergeCursor {
  /** Position in assignment order: topics as given, then partitions ascending. */
  readonly index: number;
  /** Records read ahead; `buffer[next]` is the head. A cursor is only in the heap while it has a head. */
  buffer: LogRecord[];
  next: number;
}

/** Min-heap of cursors ordered by their head record: timestamp, then assignment order (topic, partition). */
export class CursorHeap<C extends MergeCursor> {
  private readonly items: C[] = [];
  private readonly members = new Set<C>();

  /** Number of queued cursors. */
  get size(): number {
    return this.items.length;
  }

  /** Whether the cursor is currently queued. */
  has(c: C): boolean {
    return this.members.has(c);
  }

  /** Adds a cursor that currently has a head record. */
  push(c: C): void {
    this.members.add(c);
    const items = this.items;
    items.push(c);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  /** Removes and returns the cursor whose head comes first. */
  pop(): C | undefined {
    const items = this.items;
    const top = items[0];
    if (top === undefined) return undefined;
    this.members.delete(top);
    const last = items.pop()!;
    if (items.length > 0) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < items.length && before(items[l]!, items[m]!)) m = l;
        if (r < items.length && before(items[r]!, items[m]!)) m = r;
        if (m === i) break;
        [items[i], items[m]] = [items[m]!, items[i]!];
        i = m;
      }
    }
    return top;
  }
}

function before(a: MergeCursor, b: MergeCursor): boolean {
  const ta = a.buffer[a.next]!.timestamp;
  const tb = b.buffer[b.next]!.timestamp;
  return ta !== tb ? ta < tb : a.index < b.index;
}
