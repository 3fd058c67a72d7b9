/**
 * The sweep's progress bar: on stderr, only when stderr is a terminal (a pipe or a CI log gets
 * nothing), redrawn at most every REDRAW_MS, and erased before the summary is printed.
 */
const REDRAW_MS = 100;
const BAR_WIDTH = 30;

export class ProgressBar {
  private lastDrawMs = -Infinity;
  private readonly startedMs = performance.now();
  private readonly enabled: boolean;

  constructor(
    private readonly total: number,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {
    this.enabled = stream.isTTY === true && total > 0;
  }

  update(done: number, failures: number): void {
    if (!this.enabled) return;
    const now = performance.now();
    if (now - this.lastDrawMs < REDRAW_MS && done < this.total) return;
    this.lastDrawMs = now;
    const filled = Math.round((done / this.total) * BAR_WIDTH);
    const seconds = (now - this.startedMs) / 1000;
    const rate = seconds > 0 ? (done / seconds).toFixed(1) : '-';
    const bar = `${'#'.repeat(filled)}${'.'.repeat(BAR_WIDTH - filled)}`;
    this.stream.write(`\r\x1b[2K[${bar}] ${done}/${this.total} seeds  ${failures} failing  ${rate} runs/s`);
  }

  finish(): void {
    if (this.enabled) this.stream.write('\r\x1b[2K');
  }
}
