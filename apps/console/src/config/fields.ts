/**
 * Console-only leaf validators; the shared ones (port, duration, cidr, section, ...) are @svc/core's
 * `configFields`. Messages read well after the key path ("must be an absolute http(s) URL, got 3").
 */
import { configFields } from "@svc/core";

const { fail, leaf } = configFields;

/** "" or an absolute http(s) URL; `noTrailingSlash` refuses a path ending in "/". */
export function optionalHttpUrl(noTrailingSlash = false) {
  return leaf<string>((v) => {
    if (v === "") return v;
    if (typeof v !== "string") return fail("must be an absolute http(s) URL", v);
    let u: URL;
    try {
      u = new URL(v);
    } catch {
      return fail("must be an absolute http(s) URL", v);
    }
    if (u.protocol !== "http:" && u.protocol !== "https:") return fail("must be an absolute http(s) URL", v);
    if (noTrailingSlash && v.endsWith("/")) return fail("must not end with a slash", v);
    return v;
  });
}
