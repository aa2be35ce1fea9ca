const NON_ASCII = /[\u0080-\uffff]/;

/**
 * Bytes of a string encoded as UTF-8, without encoding it: a surrogate pair is one four-byte
 * character, a lone surrogate the three bytes of the replacement character (as `Buffer.byteLength`).
 */
export function utf8Length(text: string): number {
  // Most tool results are ASCII: one native scan answers them.
  if (!NON_ASCII.test(text)) return text.length;
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      // A surrogate pair: 4 bytes for 2 UTF-16 units.
      bytes += 2;
      i++;
    } else bytes += 2;
  }
  return bytes;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
