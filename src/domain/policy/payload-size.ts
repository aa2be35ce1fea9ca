/**
 * Size of a value once JSON-encoded, in UTF-8 bytes; null when it cannot be encoded (a cycle, a
 * BigInt, a throwing `toJSON`) or encodes to nothing (`undefined`, a function). Callers that limit
 * sizes treat null as "too large": a payload that cannot be measured is refused.
 */
export function jsonByteLength(value: unknown): number | null {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return null;
  }
  return typeof text === "string" ? utf8Length(text) : null;
}

/** UTF-8 length of a string without encoding it (a surrogate pair is one four-byte character). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}
