/** Runs of characters outside ASCII: only they add bytes beyond one per UTF-16 unit. */
const NON_ASCII_RUNS = /[\u0080-\uffff]+/g;

/**
 * Bytes of a string encoded as UTF-8, without encoding it: a surrogate pair is one four-byte
 * character, a lone surrogate the three bytes of the replacement character (as `Buffer.byteLength`).
 * One native scan finds the non-ASCII runs; only their characters are looked at one by one (a large
 * result that is mostly ASCII, with a few accents, costs little more than an ASCII one).
 */
export function utf8Length(text: string): number {
  let bytes = text.length;
  NON_ASCII_RUNS.lastIndex = 0;
  for (let run = NON_ASCII_RUNS.exec(text); run !== null; run = NON_ASCII_RUNS.exec(text)) {
    bytes += extraBytes(run[0]);
  }
  return bytes;
}

/** The bytes a run of non-ASCII characters adds to its length in UTF-16 units. */
function extraBytes(run: string): number {
  let extra = 0;
  for (let i = 0; i < run.length; i++) {
    const code = run.charCodeAt(i);
    if (code < 0x800) extra += 1;
    else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(run.charCodeAt(i + 1))) {
      // A surrogate pair: 4 bytes for 2 UTF-16 units.
      extra += 2;
      i++;
    } else extra += 2;
  }
  return extra;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
