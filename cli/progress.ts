/**
 * Progress for long work: on a terminal, one redrawn line with a bar, rate and ETA; otherwise a plain
 * line every few seconds (so CI logs and pipes stay readable).
 */
export interface Progress {
  update(done: number, extra?: string): void;
  finish(extra?: string): void;
}

export function progress(
  label: string,
  total: number | undefined,
  unit: string,
  stream: NodeJS.WriteStream = process.stderr,
): Progress {
  const started = Date.now();
  let lastDraw = 0;
  const tty = stream.isTTY === true;
  // RACING_PROGRESS_MS overrides the interval (scripts and tests that follow progress closely).
  const override = Number(process.env['RACING_PROGRESS_MS']);
  const interval = override > 0 ? override : tty ? 200 : 5000;
  const line = (done: number, extra: string | undefined) => {
    const secs = (Date.now() - started) / 1000;
    const rate = secs > 0 ? done / secs : 0;
    const pct = total ? Math.min(1, done / total) : undefined;
    const eta = total && rate > 0 ? Math.max(0, (total - done) / rate) : undefined;
    const bar =
      pct === undefined ? '' : `[${'#'.repeat(Math.round(pct * 24)).padEnd(24, '.')}] ${(pct * 100).toFixed(1)}% `;
    return `${label} ${bar}${done.toLocaleString('en-GB')}${total ? `/${total.toLocaleString('en-GB')}` : ''} ${unit} ${Math.round(rate).toLocaleString('en-GB')} ${unit}/s${eta === undefined ? '' : ` ETA ${eta.toFixed(0)}s`}${extra ? ` ${extra}` : ''}`;
  };
  return {
    update(done, extra) {
      const now = Date.now();
      if (now - lastDraw < interval) return;
      lastDraw = now;
      if (tty) stream.write(`\r\x1b[2K${line(done, extra)}`);
      else stream.write(`${line(done, extra)}\n`);
    },
    finish(extra) {
      const secs = (Date.now() - started) / 1000;
      if (tty) stream.write('\r\x1b[2K');
      stream.write(`${label} done in ${secs.toFixed(1)}s${extra ? ` ${extra}` : ''}\n`);
    },
  };
}
