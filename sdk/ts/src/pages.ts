import type { PageLinks, PageMeta } from "./types.js";

/** One page of a list answer. */
export interface Page<T> {
  data: T[];
  meta: PageMeta;
  links: PageLinks;
}

/**
 * A list across its pages. `for await (const item of list)` walks every
 * item, fetching a page when the previous one is used up; `pages()` yields
 * whole pages (with meta and links). Nothing is fetched until iterated.
 *
 * The next page is asked for by number with the same filters and per_page,
 * not by following links.next: shipd builds links from its own base URL,
 * which behind a proxy may not be the one the client uses.
 */
export class Paginator<T, P extends Page<T> = Page<T>> implements AsyncIterable<T> {
  constructor(
    private readonly fetchPage: (page: number) => Promise<P>,
    private readonly firstPage: number = 1,
  ) {}

  async *pages(): AsyncGenerator<P, void, undefined> {
    let number = this.firstPage;
    for (;;) {
      const page = await this.fetchPage(number);
      yield page;
      // Stop at the last page, and on an empty one too: a list that
      // shrank while being read can leave current_page past last_page.
      if (page.links.next === null || page.meta.current_page >= page.meta.last_page || page.data.length === 0) {
        return;
      }
      number = page.meta.current_page + 1;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) {
      yield* page.data;
    }
  }

  /** Every item of every page, in order. */
  async all(): Promise<T[]> {
    const items: T[] = [];
    for await (const item of this) items.push(item);
    return items;
  }
}
