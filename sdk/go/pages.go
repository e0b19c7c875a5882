package shipd

import (
	"context"
	"errors"
	"iter"
)

// pages yields every item of a paginated list, fetching page after page
// until the last (meta.last_page). An error is yielded once, as the last
// pair. Pages are read by number, so an item created or deleted while the
// loop runs can shift the pages: one may be seen twice or not at all.
func pages[T any](ctx context.Context, fetch func(ctx context.Context, page int) ([]T, *PageMeta, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		for page := 1; ; page++ {
			items, meta, err := fetch(ctx, page)
			if err == nil && meta == nil {
				err = errors.New("shipd: a list answer without meta")
			}
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, item := range items {
				if !yield(item, nil) {
					return
				}
			}
			if len(items) == 0 || meta.CurrentPage >= meta.LastPage {
				return
			}
		}
	}
}

// withPage returns a copy of the caller's parameters set to one page, so
// the caller's own value is never changed.
func withPage[P any](params *P, page int, set func(*P, *int)) *P {
	var p P
	if params != nil {
		p = *params
	}
	set(&p, &page)
	return &p
}

// ShippingChannels yields every shipping channel that params selects, all
// pages of them (params' Page is ignored; PerPage sets the page size).
func (c *Client) ShippingChannels(ctx context.Context, params *ListShippingChannelsParams) iter.Seq2[ShippingChannel, error] {
	return pages(ctx, func(ctx context.Context, page int) ([]ShippingChannel, *PageMeta, error) {
		p := withPage(params, page, func(p *ListShippingChannelsParams, n *int) { p.Page = n })
		res, err := c.ListShippingChannelsWithResponse(ctx, p)
		if err != nil {
			return nil, nil, err
		}
		return res.JSON200.Data, &res.JSON200.Meta, nil
	})
}

// Shipments yields every shipment that params selects, all pages of them.
func (c *Client) Shipments(ctx context.Context, params *ListShipmentsParams) iter.Seq2[ShipmentSummary, error] {
	return pages(ctx, func(ctx context.Context, page int) ([]ShipmentSummary, *PageMeta, error) {
		p := withPage(params, page, func(p *ListShipmentsParams, n *int) { p.Page = n })
		res, err := c.ListShipmentsWithResponse(ctx, p)
		if err != nil {
			return nil, nil, err
		}
		return res.JSON200.Data, &res.JSON200.Meta, nil
	})
}

// TrackingParcels yields every tracking parcel that params selects, all
// pages of them.
func (c *Client) TrackingParcels(ctx context.Context, params *ListTrackingParcelsParams) iter.Seq2[TrackingParcelSummary, error] {
	return pages(ctx, func(ctx context.Context, page int) ([]TrackingParcelSummary, *PageMeta, error) {
		p := withPage(params, page, func(p *ListTrackingParcelsParams, n *int) { p.Page = n })
		res, err := c.ListTrackingParcelsWithResponse(ctx, p)
		if err != nil {
			return nil, nil, err
		}
		return res.JSON200.Data, &res.JSON200.Meta, nil
	})
}

// WebhookSubscriptions yields every webhook subscription, all pages of them.
func (c *Client) WebhookSubscriptions(ctx context.Context, params *ListWebhookSubscriptionsParams) iter.Seq2[WebhookSubscription, error] {
	return pages(ctx, func(ctx context.Context, page int) ([]WebhookSubscription, *PageMeta, error) {
		p := withPage(params, page, func(p *ListWebhookSubscriptionsParams, n *int) { p.Page = n })
		res, err := c.ListWebhookSubscriptionsWithResponse(ctx, p)
		if err != nil {
			return nil, nil, err
		}
		return res.JSON200.Data, &res.JSON200.Meta, nil
	})
}

// WebhookLogs yields every delivery attempt logged for the subscription
// that params selects, newest first, all pages of them.
func (c *Client) WebhookLogs(ctx context.Context, subscriptionID string, params *ListWebhookLogsParams) iter.Seq2[WebhookLog, error] {
	return pages(ctx, func(ctx context.Context, page int) ([]WebhookLog, *PageMeta, error) {
		p := withPage(params, page, func(p *ListWebhookLogsParams, n *int) { p.Page = n })
		res, err := c.ListWebhookLogsWithResponse(ctx, subscriptionID, p)
		if err != nil {
			return nil, nil, err
		}
		return res.JSON200.Data, &res.JSON200.Meta, nil
	})
}

// Pickups yields every courier pickup that params selects (a channel, a
// date, a status), all pages of them.
func (c *Client) Pickups(ctx context.Context, params *ListPickupsParams) iter.Seq2[Pickup, error] {
	return pages(ctx, func(ctx context.Context, page int) ([]Pickup, *PageMeta, error) {
		p := withPage(params, page, func(p *ListPickupsParams, n *int) { p.Page = n })
		res, err := c.ListPickupsWithResponse(ctx, p)
		if err != nil {
			return nil, nil, err
		}
		return res.JSON200.Data, &res.JSON200.Meta, nil
	})
}

// Manifests yields every manifest that params selects (a channel, a
// date), all pages of them.
func (c *Client) Manifests(ctx context.Context, params *ListManifestsParams) iter.Seq2[Manifest, error] {
	return pages(ctx, func(ctx context.Context, page int) ([]Manifest, *PageMeta, error) {
		p := withPage(params, page, func(p *ListManifestsParams, n *int) { p.Page = n })
		res, err := c.ListManifestsWithResponse(ctx, p)
		if err != nil {
			return nil, nil, err
		}
		return res.JSON200.Data, &res.JSON200.Meta, nil
	})
}
