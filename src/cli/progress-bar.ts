// The admin CLI's progress bar (long work: imports, retention runs), drawn on stderr.

/** Where the bar is drawn: stderr (redrawn in place on a terminal, a line per tenth otherwise). */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

const BAR_WIDTH = 30;

/**
 * A progress bar of `total` steps: `[##########--------------------]  33%  1000/3000 presence records`.
 * On a terminal it is redrawn in place (at most every 100 ms); elsewhere (a pipe, a log) a line is
 * written at each tenth, so logs stay short.
 */
export function progressBar(stream: ProgressStream, total: number) {
  let done = 0;
  let lastDrawn = 0;
  let lastTenth = -1;
  const line = (label: string) => {
    const ratio = total === 0 ? 1 : Math.min(1, done / total);
    const filled = Math.round(ratio * BAR_WIDTH);
    const percent = `${Math.floor(ratio * 100)}%`.padStart(4);
    return `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${percent}  ${done}/${total} ${label}`;
  };
  const draw = (label: string, force: boolean) => {
    if (stream.isTTY) {
      const now = Date.now();
      if (!force && now - lastDrawn < 100) return;
      lastDrawn = now;
      stream.write(`\r${line(label)}\u001b[K`);
      return;
    }
    const tenth = total === 0 ? 10 : Math.floor((Math.min(done, total) / total) * 10);
    if (tenth === lastTenth && !force) return;
    lastTenth = tenth;
    stream.write(`${line(label)}\n`);
  };
  return {
    /** `n` more steps done, of the kind named by `label`. */
    tick(n: number, label: string) {
      done += n;
      draw(label, false);
    },
    /** The last state, drawn whatever the throttle (and the terminal's line ended). */
    end(label: string) {
      if (stream.isTTY) {
        draw(label, true);
        stream.write('\n');
      } else if (lastTenth < 10 || done !== total) draw(label, true);
    },
  };
}
