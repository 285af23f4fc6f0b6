/** The URL of an instance request: a path on the instance (or an absolute URL, the token endpoint) and a query. */
export function requestUrl(
  path: string,
  query: URLSearchParams | Record<string, string> | undefined,
  origin: string,
): URL {
  const url = /^https?:\/\//i.test(path)
    ? new URL(path)
    : new URL(path.startsWith("/") ? path : `/${path}`, origin);
  if (query) {
    const params = query instanceof URLSearchParams ? query : new URLSearchParams(query);
    // Set at once when the path has none: each `searchParams.append` re-parses the whole URL.
    if (url.search === "") url.search = params.toString();
    else for (const [name, value] of params) url.searchParams.append(name, value);
  }
  return url;
}
