import { init, unwrap, type Api, type RequestOptions } from "./call.js";
import { Paginator } from "./pages.js";
import type { BodyOf, Pickup, QueryOf } from "./types.js";

/** Courier pickups: a channel's carrier asked to collect parcels on a date, in a window. */
export class Pickups {
  constructor(private readonly api: Api) {}

  /**
   * POST /pickups: 201 `scheduled` once the carrier confirmed it. One pickup a
   * channel a date; a window the carrier does not offer is a 422 on its field
   * (see availability). `shipment_ids`, or `parcel_count` and `total_weight_kg`.
   */
  order(body: BodyOf<"orderPickup">, o?: RequestOptions) {
    return unwrap(this.api.POST("/pickups", { body, ...init(o) }));
  }

  /** GET /pickups, every page (filters: shipping_channel_id, date, status). */
  list(query: QueryOf<"listPickups"> = {}, o?: RequestOptions): Paginator<Pickup> {
    return new Paginator(
      (page) => unwrap(this.api.GET("/pickups", { params: { query: { ...query, page } }, ...init(o) })),
      query.page ?? 1,
    );
  }

  get(id: string, o?: RequestOptions) {
    return unwrap(this.api.GET("/pickups/{id}", { params: { path: { id } }, ...init(o) }));
  }

  /**
   * DELETE /pickups/{id}: the pickup, cancelled (it stays listed). A 409
   * ShipdError when the carrier takes no cancel or it is cancelled already.
   */
  cancel(id: string, o?: RequestOptions) {
    return unwrap(this.api.DELETE("/pickups/{id}", { params: { path: { id } }, ...init(o) }));
  }

  /**
   * GET /shipping-channels/{id}/pickup-availability: the windows the
   * channel's carrier collects in on date (YYYY-MM-DD), each with the time
   * it must be ordered by when the carrier says one.
   */
  availability(channelId: string, date: string, o?: RequestOptions) {
    return unwrap(
      this.api.GET("/shipping-channels/{id}/pickup-availability", {
        params: { path: { id: channelId }, query: { date } },
        ...init(o),
      }),
    );
  }
}
