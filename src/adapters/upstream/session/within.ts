/**
 * Resolves true when `promise` settles within `ms`, false otherwise; never leaves a timer behind.
 * The waits of stop sequences: stdin EOF, SIGTERM, the last output after an exit.
 */
export function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    const settled = () => {
      clearTimeout(timer);
      resolve(true);
    };
    void promise.then(settled, settled);
  });
}
