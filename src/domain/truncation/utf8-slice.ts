/**
 * Bytes a reader must fetch around a requested slice so that {@link utf8Slice} can move its ends to
 * character boundaries: a UTF-8 character is at most 4 bytes, so 3 on either side suffice.
 */
export const SLICE_MARGIN_BYTES = 3;

/** The byte window `[start, end)` to read for a slice of `limit` bytes from `offset`. */
export function sliceWindow(offset: number, limit: number): { start: number; end: number } {
  return { start: Math.max(0, offset - SLICE_MARGIN_BYTES), end: offset + limit + SLICE_MARGIN_BYTES + 1 };
}

/**
 * Moves a requested slice `[offset, offset + limit)` of UTF-8 text onto character boundaries: the
 * start back to the beginning of the character it falls in, the end back so that no character is
 * split, or forward past one character when the limit is smaller than it (every slice makes
 * progress). `window` holds the stored bytes from `windowStart` (see {@link sliceWindow}), `total`
 * is the stored size. Returns absolute byte positions, `start <= end <= total`.
 *
 * Reading consecutive slices, each from the previous `end`, yields the stored text exactly.
 */
export function utf8Slice(
  window: Uint8Array,
  windowStart: number,
  offset: number,
  limit: number,
  total: number,
): { start: number; end: number } {
  const at = (position: number) => window[position - windowStart] ?? 0;
  const continuation = (position: number) => position < total && (at(position) & 0xc0) === 0x80;
  if (offset >= total) return { start: total, end: total };
  let start = offset;
  while (start > windowStart && continuation(start)) start--;
  let end = Math.min(start + limit, total);
  while (end > start && continuation(end)) end--;
  if (end === start) {
    end = start + 1;
    while (continuation(end)) end++;
  }
  return { start, end };
}
