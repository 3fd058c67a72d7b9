/**
 * The page around the model: self-contained (nothing fetched), the data embedded safely, the
 * flat arrays the script reads. The drawing itself is tested in a real browser (test/browser/).
 */
import { describe, expect, it } from 'vitest';
import { pageData, scriptJson } from '../../src/view/page-data.ts';
import { renderTimeline } from '../../src/view/index.ts';
import { tint } from '../../src/view/palette.ts';
import { lines } from './trace-lines.ts';

const TRACE = lines(
  {
    t: 0,
    type: 'task.submitted',
    task: 'q',
    class: 'queued',
    level: null,
    kernel: false,
    source: 'cli',
    channel: 'cli',
  },
  { t: 0, type: 'task.start', task: 'q', from: 'queue' },
  {
    t: 5,
    type: 'task.submitted',
    task: 'i',
    class: 'interrupt',
    level: 3,
    kernel: false,
    source: 'term',
    channel: 'term',
  },
  { t: 5, type: 'preempt.armed', task: 'i', victim: 'q', level: 3, reason: 'register', evicted: null },
  {
    t: 5,
    type: 'task.suspend',
    task: 'q',
    by: 'i',
    step: 'Model',
    level: null,
    eff: 0,
    depthAfter: 1,
    reason: 'preempt',
  },
  { t: 5, type: 'task.start', task: 'i', from: 'immediate' },
  { t: 9, type: 'output.sent', task: 'i', channel: 'term', text: '</script><script>alert(1)</script>' },
  { t: 9, type: 'task.terminal', task: 'i', kind: 'done', reason: null, reply: 'ok' },
  { t: 9, type: 'task.resume', task: 'q', after: 'i', level: null, eff: 0, depthAfter: 0 },
  { t: 12, type: 'task.terminal', task: 'q', kind: 'done', reason: null, reply: 'ok' },
);

describe('timeline page', () => {
  it('is one self-contained file: no external script, style, image or link', () => {
    const { html } = renderTimeline(TRACE);
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).not.toMatch(/<(script|img|iframe)[^>]*\ssrc=/i);
    expect(html).not.toMatch(/<link\b/i);
    expect(html).not.toMatch(/url\((?!#)/);
    expect(html).not.toMatch(/@import/);
  });

  it('embeds trace text so that it cannot close the data script', () => {
    const { html } = renderTimeline(TRACE);
    const data = html.slice(html.indexOf('<script id="timeline-data"'), html.indexOf('</script>') + '</script>'.length);
    expect(data.match(/<\/script>/g)).toHaveLength(1);
    expect(scriptJson({ s: '</script><!--\u2028' })).toBe('{"s":"\\u003c/script>\\u003c!--\\u2028"}');
    expect(JSON.parse(scriptJson({ s: '</script>' }))).toEqual({ s: '</script>' });
  });

  it('flattens the model into arrays of fixed width', () => {
    const { model } = renderTimeline(TRACE);
    const d = pageData(model);
    expect(d.lines.split('\n')).toHaveLength(10);
    expect(d.instants).toEqual([0, 2, 5, 4, 9, 3, 12, 1]);
    const lane = d.lanes[0];
    expect(lane?.ids).toEqual(['q', 'i']);
    expect(lane?.levels).toEqual([0, 3]);
    expect(lane?.running).toEqual([0, 5, 0, 5, 9, 1, 9, 12, 0]);
    expect(lane?.stack).toEqual([[5, 9, 0]]);
    expect(lane?.preemptions).toEqual([5, 5, 1, 0, 1]);
    // q and i overlap, so they are on two tracks; the waiting span of i took no time and is left out.
    expect(lane?.tracks).toEqual([
      [0, 5, 1, 0, 5, 9, 2, 0, 9, 12, 1, 0],
      [5, 9, 1, 1],
    ]);
    expect(lane?.terminals).toEqual(['done', 'done']);
  });

  it('tints level colours towards white', () => {
    expect(tint('#d23c3c', 1)).toBe('#d23c3c');
    expect(tint('#d23c3c', 0)).toBe('#ffffff');
    expect(tint('#000000', 0.4)).toBe('#999999');
  });
});
