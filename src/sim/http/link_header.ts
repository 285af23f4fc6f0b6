/**
 * The Link pagination header in the instance's format: absolute URLs, entries joined by "," without
 * spaces, `;rel="x"`, all original parameters echoed followed by sysparm_limit and sysparm_offset.
 * `prev` is present even on the first page (offset may be negative, as captured); `next` is omitted on
 * the last page; `last` is floor((total-1)/limit)*limit. Without a total (sysparm_no_count) there is no
 * `last`, and `next` appears when the page was full.
 */
export function linkHeader(
  url: URL,
  publicOrigin: string,
  offset: number,
  limit: number,
  total: number,
  pageRows: number,
): string {
  const base = new URLSearchParams(url.search);
  base.delete("sysparm_limit");
  base.delete("sysparm_offset");
  const href = (o: number) => {
    const params = new URLSearchParams(base);
    params.append("sysparm_limit", String(limit));
    params.append("sysparm_offset", String(o));
    return `<${publicOrigin}${url.pathname}?${params}>`;
  };
  const links = [`${href(0)};rel="first"`, `${href(offset - limit)};rel="prev"`];
  const hasNext = total >= 0 ? offset + limit < total : pageRows >= limit;
  if (hasNext) links.push(`${href(offset + limit)};rel="next"`);
  if (total >= 0) links.push(`${href(Math.max(0, Math.floor((total - 1) / limit) * limit))};rel="last"`);
  return links.join(",");
}
