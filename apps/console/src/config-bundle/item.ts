/**
 * One bundle item as an import judges it: its key (what the report calls it) and the write to run, or the 400 its
 * own route would answer for its shape.
 */
import type { z } from "zod";

/** What a write did with an item that did not fail. */
export interface ItemDone {
  outcome: "create" | "update" | "unchanged" | "skipped";
  id: string | null;
  message?: string;
}

/** A judged item. */
export type JudgedItem = { key: string; run: () => Promise<ItemDone> } | { key: string; invalid: string };

/** One section of an import, after it read what exists. */
export interface SectionRun {
  item(raw: unknown, index: number): JudgedItem;
}

/** The key of an item whose shape was refused: its name or url when it has one, else its position. */
export function rawKey(raw: unknown, index: number): string {
  if (raw !== null && typeof raw === "object" && !Array.isArray(raw)) {
    for (const k of ["name", "url", "subject"]) {
      const v = Object.hasOwn(raw, k) ? (raw as Record<string, unknown>)[k] : undefined;
      if (typeof v === "string" && v !== "") return v.slice(0, 200);
    }
  }
  return `#${index}`;
}

/** The 400 text of a refused shape, as the routes word it (`item.address: ...`). */
export function problems(error: z.ZodError): string {
  return error.issues.map((i) => `${["item", ...i.path.map(String)].join(".")}: ${i.message}`).join("; ");
}

/** Parses `raw` with `schema`: the write `make` builds from the parsed item, or the 400 text. */
export function judge<T>(
  schema: z.ZodType<T>,
  raw: unknown,
  index: number,
  make: (item: T) => { key: string; run: () => Promise<ItemDone> },
): JudgedItem {
  const p = schema.safeParse(raw);
  if (!p.success) return { key: rawKey(raw, index), invalid: problems(p.error) };
  return make(p.data);
}
