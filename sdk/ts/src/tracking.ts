import { init, unwrap, type Api, type RequestOptions } from "./call.js";
import { Paginator } from "./pages.js";
import type { BodyOf, QueryOf, Schemas } from "./types.js";

/** Tracking parcels: a carrier's parcel checked on a schedule. */
export class TrackingParcels {
  constructor(private readonly api: Api) {}

  create(body: BodyOf<"createTrackingParcel">, o?: RequestOptions) {
    return unwrap(this.api.POST("/tracking-parcels", { body, ...init(o) }));
  }

  list(query: QueryOf<"listTrackingParcels"> = {}, o?: RequestOptions): Paginator<Schemas["TrackingParcelSummary"]> {
    return new Paginator(
      (page) => unwrap(this.api.GET("/tracking-parcels", { params: { query: { ...query, page } }, ...init(o) })),
      query.page ?? 1,
    );
  }

  /** The record with its status updates, newest first. */
  get(id: string, o?: RequestOptions) {
    return unwrap(this.api.GET("/tracking-parcels/{id}", { params: { path: { id } }, ...init(o) }));
  }

  replace(id: string, body: BodyOf<"replaceTrackingParcel">, o?: RequestOptions) {
    return unwrap(this.api.PUT("/tracking-parcels/{id}", { params: { path: { id } }, body, ...init(o) }));
  }

  update(id: string, body: BodyOf<"updateTrackingParcel">, o?: RequestOptions) {
    return unwrap(this.api.PATCH("/tracking-parcels/{id}", { params: { path: { id } }, body, ...init(o) }));
  }

  async delete(id: string, o?: RequestOptions): Promise<void> {
    await unwrap(this.api.DELETE("/tracking-parcels/{id}", { params: { path: { id } }, ...init(o) }));
  }

  /** Checks with the carrier now; a 503 ShipdError when it gives no answer. */
  refresh(id: string, o?: RequestOptions) {
    return unwrap(this.api.POST("/tracking-parcels/{id}/refresh", { params: { path: { id } }, ...init(o) }));
  }
}
