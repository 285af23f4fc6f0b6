/**
 * Crash-safe file replacement: whatever instant the process dies at (kill -9, power loss after the rename is
 * durable), the target holds either its previous content or the new content, never a mix or a truncation.
 *
 * Steps: write a temp file in the same directory (rename is only atomic within one file system), fsync it (the
 * data must be on disk before the name points at it), rename it over the target, fsync the directory (so the
 * rename itself survives a power loss). A crash before the rename leaves a temp file behind; the owner removes
 * such leftovers with `removeLeftoverTempFiles` when it starts.
 */
import { basename, dirname, join } from "node:path";

/** Prefix of the temp files that belong to `path`: `<name>.tmp-`. */
function tempPrefix(path: string): string {
  return `${basename(path)}.tmp-`;
}

/** Replaces `path` with `data` atomically and durably (see the module comment). */
export async function writeFileAtomically(path: string, data: Uint8Array): Promise<void> {
  const suffix = `${Deno.pid}-${crypto.randomUUID().slice(0, 8)}`;
  const temp = join(dirname(path), tempPrefix(path) + suffix);
  try {
    const file = await Deno.open(temp, { write: true, createNew: true });
    try {
      await writeAll(file, data);
      await file.sync();
    } finally {
      file.close();
    }
    await Deno.rename(temp, path);
  } catch (error) {
    await Deno.remove(temp).catch(() => {});
    throw error;
  }
  await syncDirectory(dirname(path));
}

async function writeAll(file: Deno.FsFile, data: Uint8Array): Promise<void> {
  let written = 0;
  while (written < data.byteLength) written += await file.write(data.subarray(written));
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await Deno.open(dir, { read: true });
  try {
    await handle.sync();
  } finally {
    handle.close();
  }
}

/** Removes temp files a crashed `writeFileAtomically(path, …)` left behind; returns their names. */
export async function removeLeftoverTempFiles(path: string): Promise<string[]> {
  const prefix = tempPrefix(path);
  const removed: string[] = [];
  for await (const entry of Deno.readDir(dirname(path))) {
    if (!entry.isFile || !entry.name.startsWith(prefix)) continue;
    await Deno.remove(join(dirname(path), entry.name)).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
    removed.push(entry.name);
  }
  return removed;
}
