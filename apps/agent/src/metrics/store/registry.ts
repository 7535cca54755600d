import type { Family, Series } from "./family.ts";
import { TEXT_CONTENT_TYPE } from "./text-format.ts";

/** Any family of the store. */
export type AnyFamily = Family<Series>;

/**
 * The agent's metric families, in registration order, and their exposition: families separated by a blank
 * line, a newline at the end (the bytes prom-client's registry writes for the same families).
 */
export class MetricRegistry {
  readonly contentType = TEXT_CONTENT_TYPE;
  readonly #families: AnyFamily[] = [];

  /** Adds a family; throws when one with its name is registered already. */
  register<F extends AnyFamily>(family: F): F {
    if (this.#families.some((f) => f.name === family.name)) {
      throw new Error(`metric ${family.name} is already registered`);
    }
    this.#families.push(family);
    return family;
  }

  /**
   * The exposition in chunks, made as they are read: only one chunk (~64 KiB) exists at a time, however many
   * series there are.
   */
  *chunks(): Generator<string> {
    let first = true;
    for (const family of this.#families) {
      let head = true;
      for (const chunk of family.chunks()) {
        yield head && !first ? `\n\n${chunk}` : chunk;
        head = false;
      }
      first = false;
    }
    yield "\n";
  }

  /** The whole exposition as one string. */
  metrics(): Promise<string> {
    let text = "";
    for (const chunk of this.chunks()) text += chunk;
    return Promise.resolve(text);
  }
}
