import { init, unwrap, type Api, type RequestOptions } from "./call.js";
import { Paginator } from "./pages.js";
import type { BodyOf, QueryOf, ShippingChannel } from "./types.js";

/** Shipping channels: a carrier account's credentials and defaults. */
export class Channels {
  constructor(private readonly api: Api) {}

  /** POST /shipping-channels (status `draft` until validated). */
  create(body: BodyOf<"createShippingChannel">, o?: RequestOptions) {
    return unwrap(this.api.POST("/shipping-channels", { body, ...init(o) }));
  }

  /** GET /shipping-channels, every page. */
  list(query: QueryOf<"listShippingChannels"> = {}, o?: RequestOptions): Paginator<ShippingChannel> {
    return new Paginator(
      (page) => unwrap(this.api.GET("/shipping-channels", { params: { query: { ...query, page } }, ...init(o) })),
      query.page ?? 1,
    );
  }

  get(id: string, o?: RequestOptions) {
    return unwrap(this.api.GET("/shipping-channels/{id}", { params: { path: { id } }, ...init(o) }));
  }

  /** PUT: settings replaced (a masked secret sent back keeps its value). */
  replace(id: string, body: BodyOf<"replaceShippingChannel">, o?: RequestOptions) {
    return unwrap(this.api.PUT("/shipping-channels/{id}", { params: { path: { id } }, body, ...init(o) }));
  }

  /** PATCH: settings merged (a null value removes a key). */
  update(id: string, body: BodyOf<"updateShippingChannel">, o?: RequestOptions) {
    return unwrap(this.api.PATCH("/shipping-channels/{id}", { params: { path: { id } }, body, ...init(o) }));
  }

  delete(id: string, o?: RequestOptions) {
    return unwrap(this.api.DELETE("/shipping-channels/{id}", { params: { path: { id } }, ...init(o) }));
  }

  /** Checks the credentials with the carrier: `active`, or a 422 ShipdError with its reason. */
  validate(id: string, o?: RequestOptions) {
    return unwrap(this.api.POST("/shipping-channels/{id}/validate", { params: { path: { id } }, ...init(o) }));
  }
}
