import { describe, expect, it } from 'vitest';
import { ViewLead } from '../../cli/commands/pipeline.js';

/** Whether a promise has settled by the time the microtasks queued now have run. */
async function settled(p: Promise<void>): Promise<boolean> {
  let done = false;
  void p.then(() => {
    done = true;
  });
  await new Promise((r) => setImmediate(r));
  return done;
}

/** A catch-up holds the view at most `lead` input records ahead of the processor, until released. */
describe('ViewLead', () => {
  it('lets the view read up to the lead ahead of the processor without waiting', () => {
    const lead = new ViewLead(100);
    expect(lead.wait(100)).toBeUndefined();
    lead.processed(50);
    expect(lead.wait(150)).toBeUndefined();
  });

  it('holds the view beyond the lead until the processor has caught up to within it', async () => {
    const lead = new ViewLead(100);
    const wait = lead.wait(250)!;
    expect(wait).toBeInstanceOf(Promise);
    lead.processed(100);
    expect(await settled(wait)).toBe(false);
    lead.processed(150);
    expect(await settled(wait)).toBe(true);
  });

  it('lets the view go on for good once released (the processor is caught up or stopped)', async () => {
    const lead = new ViewLead(100);
    const wait = lead.wait(1_000)!;
    lead.release();
    expect(await settled(wait)).toBe(true);
    expect(lead.wait(1_000_000)).toBeUndefined();
  });
});
