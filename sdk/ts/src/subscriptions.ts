import { init, unwrap, type Api, type RequestOptions } from "./call.js";
import { Paginator } from "./pages.js";
import type { BodyOf, QueryOf, WebhookLog, WebhookSubscription } from "./types.js";

/** Webhook subscriptions and their delivery logs. */
export class WebhookSubscriptions {
  constructor(private readonly api: Api) {}

  /**
   * Subscribes a URL. Without a `secret` in body shipd generates one and
   * answers it once, as `generated_secret` beside `data`: keep it for
   * verifyWebhook.
   */
  create(body: BodyOf<"createWebhookSubscription">, o?: RequestOptions) {
    return unwrap(this.api.POST("/webhook-subscriptions", { body, ...init(o) }));
  }

  list(query: QueryOf<"listWebhookSubscriptions"> = {}, o?: RequestOptions): Paginator<WebhookSubscription> {
    return new Paginator(
      (page) => unwrap(this.api.GET("/webhook-subscriptions", { params: { query: { ...query, page } }, ...init(o) })),
      query.page ?? 1,
    );
  }

  get(id: string, o?: RequestOptions) {
    return unwrap(this.api.GET("/webhook-subscriptions/{id}", { params: { path: { id } }, ...init(o) }));
  }

  replace(id: string, body: BodyOf<"replaceWebhookSubscription">, o?: RequestOptions) {
    return unwrap(this.api.PUT("/webhook-subscriptions/{id}", { params: { path: { id } }, body, ...init(o) }));
  }

  update(id: string, body: BodyOf<"updateWebhookSubscription">, o?: RequestOptions) {
    return unwrap(this.api.PATCH("/webhook-subscriptions/{id}", { params: { path: { id } }, body, ...init(o) }));
  }

  async delete(id: string, o?: RequestOptions): Promise<void> {
    await unwrap(this.api.DELETE("/webhook-subscriptions/{id}", { params: { path: { id } }, ...init(o) }));
  }

  /** The subscription's delivery attempts, newest first, every page. */
  logs(id: string, query: QueryOf<"listWebhookLogs"> = {}, o?: RequestOptions): Paginator<WebhookLog> {
    return new Paginator(
      (page) =>
        unwrap(
          this.api.GET("/webhook-subscriptions/{id}/logs", {
            params: { path: { id }, query: { ...query, page } },
            ...init(o),
          }),
        ),
      query.page ?? 1,
    );
  }

  /** One attempt: headers and body as signed, the receiver's answer. */
  log(id: string, logId: string, o?: RequestOptions) {
    return unwrap(
      this.api.GET("/webhook-subscriptions/{id}/logs/{log_id}", { params: { path: { id, log_id: logId } }, ...init(o) }),
    );
  }
}
