/**
 * Byte strings appended one after another into large shared buffers, and dropped from the end: where the block
 * store keeps its packed blocks (store.ts). A Uint8Array of its own costs about 190 heap bytes (its view and its
 * ArrayBuffer) on top of its bytes; a string kept here costs its bytes and the number that locates it.
 */

/** Bytes per buffer; a longer string gets a buffer of its own. */
const CHUNK_BYTES = 128 * 1024
/** A position is the buffer's index times this plus the offset in it (a double: exact up to 2^53). */
const CHUNK_SPAN = 2 ** 31

export class ByteArena {
  private readonly chunks: Uint8Array[] = []
  /** Bytes used in the last buffer. */
  private used = 0

  /** Copies `bytes` in; returns the position `read` takes. */
  append(bytes: Uint8Array): number {
    const last = this.chunks[this.chunks.length - 1]
    if (last === undefined || this.used + bytes.length > last.length) {
      this.chunks.push(new Uint8Array(Math.max(CHUNK_BYTES, bytes.length)))
      this.used = 0
    }
    const chunk = this.chunks.length - 1
    this.chunks[chunk]!.set(bytes, this.used)
    const position = chunk * CHUNK_SPAN + this.used
    this.used += bytes.length
    return position
  }

  /** The `length` bytes at `position`, as a view (its bytes never change). */
  read(position: number, length: number): Uint8Array {
    const offset = position % CHUNK_SPAN
    return this.chunks[(position - offset) / CHUNK_SPAN]!.subarray(offset, offset + length)
  }

  /**
   * Drops the string at `position` and every one appended after it. Their bytes are never written over (views of them
   * stay valid: records unpacked from them may still be held): appends go on in a new buffer.
   */
  truncate(position: number): void {
    const offset = position % CHUNK_SPAN
    const chunk = (position - offset) / CHUNK_SPAN
    this.chunks.length = offset === 0 ? chunk : chunk + 1
    this.used = this.chunks[this.chunks.length - 1]?.length ?? 0
  }

  clear(): void {
    this.chunks.length = 0
    this.used = 0
  }
}
