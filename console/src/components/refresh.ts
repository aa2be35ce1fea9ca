import { useEffect, useRef } from "preact/hooks";

/** Runs `tick` every `ms` milliseconds while the page is mounted and its tab is visible. */
export function useEvery(ms: number, tick: () => void): void {
  const current = useRef(tick);
  current.current = tick;
  useEffect(() => {
    const timer = setInterval(() => {
      if (!document.hidden) current.current();
    }, ms);
    return () => clearInterval(timer);
  }, [ms]);
}
