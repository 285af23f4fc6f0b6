/** The config files (YAML or JSON) of a folder, for the tests that read every fixture or example config. */

/** The `.yaml`, `.yml` and `.json` files directly in `dir`, sorted by path. */
export function configFilesIn(dir: URL): URL[] {
  return [...Deno.readDirSync(dir)]
    .filter((e) => e.isFile && /\.(ya?ml|json)$/.test(e.name))
    .map((e) => new URL(e.name, dir))
    .sort((a, b) => a.pathname.localeCompare(b.pathname));
}
