/**
 * The event loop's thread first: on Linux every other thread of this process gets a lower scheduling
 * priority (a higher nice value). `racing process` and `racing rebuild` use it (cli/racing.ts). The
 * other threads are V8's platform workers (the collector's parallel and concurrent work, compilation),
 * libuv's pool (LevelDB's reads and writes) and LevelDB's compaction thread. The event loop runs the
 * engine, which is a replay's bottleneck. On a two-core machine the helpers and the loop otherwise share
 * the cores evenly, and the loop waits behind them. docs/performance-history.md, "The event loop's thread
 * first", has the figures.
 *
 * Linux keeps one nice value per thread: `setpriority(PRIO_PROCESS, tid)`, which is `os.setPriority(tid)`,
 * changes that thread alone. Threads also appear over time: libuv's pool on its first use, LevelDB's
 * compaction thread at the first compaction. So the process's threads are listed again every
 * `intervalMs`. A thread is lowered once and not touched again. An operator's own `renice` of it later
 * stands. Other systems keep one priority per process: nothing is done there.
 */
import { readdirSync, readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

export interface HelperPriority {
  /** how many threads have been lowered so far */
  readonly lowered: number;
  /** stops looking for new threads (those lowered stay lowered) */
  stop(): void;
}

/** The id of the calling thread (/proc/thread-self -> "<pid>/task/<tid>"; it may be a worker thread), or undefined without /proc. */
function ownThread(): number | undefined {
  try {
    const own = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(own) ? own : undefined;
  } catch {
    return undefined;
  }
}

/** The thread ids of this process, or undefined when /proc cannot list them. */
function threads(): number[] | undefined {
  try {
    return readdirSync('/proc/self/task').map(Number);
  } catch {
    return undefined;
  }
}

/**
 * Gives every thread of this process but the calling one the nice value `nice` (1..19), now and every
 * `intervalMs` for threads that appear later. Nice 0 turns it off. The timer does not keep the process
 * alive. A thread that ended before it could be lowered is skipped. Any other failure (a system that
 * refuses) stops the lowering and is reported once through `onError`.
 */
export function lowerHelperThreads(
  nice: number,
  options: { intervalMs?: number; onError?: (e: unknown) => void } = {},
): HelperPriority {
  const seen = new Set<number>();
  let lowered = 0;
  let timer: NodeJS.Timeout | undefined;
  const stop = () => {
    clearInterval(timer);
    timer = undefined;
  };
  const handle: HelperPriority = {
    get lowered() {
      return lowered;
    },
    stop,
  };
  const own = nice === 0 || process.platform !== 'linux' ? undefined : ownThread();
  if (own === undefined) return handle;
  const pass = () => {
    const all = threads();
    if (!all) return stop();
    for (const tid of all) {
      if (tid === own || seen.has(tid)) continue;
      seen.add(tid);
      try {
        setPriority(tid, nice);
        lowered++;
      } catch (e) {
        if ((e as { info?: { code?: string } }).info?.code === 'ESRCH') continue; // the thread has ended
        stop();
        options.onError?.(e);
        return;
      }
    }
  };
  // the timer first, so that a first pass that fails stops it
  timer = setInterval(pass, options.intervalMs ?? 1_000);
  timer.unref();
  pass();
  return handle;
}
