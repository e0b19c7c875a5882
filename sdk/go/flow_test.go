package shipd_test

import (
	"bytes"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	shipd "shipd/sdk/go"
)

// TestLifecycle walks the API as a user of the SDK would: channels,
// shipments and their label, tracking parcels, webhooks and their logs.
// With the other tests it calls every operation of the document.
func TestLifecycle(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, 2*time.Minute)
	c, _ := newClient(t, apiKey, shipd.UserAgent("sdk-go-tests/1"))

	doc, err := c.GetOpenAPIDocumentWithResponse(ctx)
	if err != nil || (*doc.JSON200)["openapi"] != "3.1.0" {
		t.Fatalf("document: %v", err)
	}
	providers, err := c.ListProvidersWithResponse(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(providers.JSON200.Data, func(p shipd.Provider) bool { return p.Code == "sandbox" }) {
		t.Fatal("no sandbox provider")
	}

	// Webhooks first, so that the receiver hears what follows.
	rcv := newReceiver(t)
	sub, err := c.CreateWebhookSubscriptionWithResponse(ctx, nil, shipd.CreateWebhookSubscription{
		Name: "lifecycle", Url: rcv.URL + "/hook",
		Events: []shipd.EventType{shipd.EventTypeShipmentCreated, shipd.EventTypeShipmentUpdated, shipd.EventTypeTrackingParcelCreated},
	})
	if err != nil {
		t.Fatal(err)
	}
	subID, secret := sub.JSON201.Data.Id, *sub.JSON201.GeneratedSecret
	if _, err := c.GetWebhookSubscriptionWithResponse(ctx, subID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ReplaceWebhookSubscriptionWithResponse(ctx, subID, shipd.ReplaceWebhookSubscriptionJSONRequestBody{
		Name:   ptr("lifecycle (replaced)"),
		Events: &[]shipd.EventType{shipd.EventTypeShipmentCreated, shipd.EventTypeShipmentUpdated, shipd.EventTypeTrackingParcelCreated},
	}); err != nil {
		t.Fatal(err)
	}
	if res, err := c.UpdateWebhookSubscriptionWithResponse(ctx, subID, shipd.UpdateWebhookSubscription{Name: ptr("lifecycle")}); err != nil || res.JSON200.Data.Name != "lifecycle" {
		t.Fatalf("update subscription: %v", err)
	}
	if !contains(t, c.WebhookSubscriptions(ctx, nil), func(s shipd.WebhookSubscription) bool { return s.Id == subID }) {
		t.Fatal("subscription not listed")
	}

	// A channel, changed both ways, validated.
	ch := newChannel(t, ctx, c, unique("lifecycle"), "b", false)
	if _, err := c.GetShippingChannelWithResponse(ctx, ch.Id); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ReplaceShippingChannelWithResponse(ctx, ch.Id, shipd.UpdateShippingChannel{
		Name: ptr(ch.Name), Description: ptr("replaced"), Settings: &map[string]any{"clientId": "a", "clientSecret": "b"},
	}); err != nil {
		t.Fatal(err)
	}
	if res, err := c.UpdateShippingChannelWithResponse(ctx, ch.Id, shipd.UpdateShippingChannel{Description: ptr("patched")}); err != nil || res.JSON200.Data.Description != "patched" {
		t.Fatalf("update channel: %v", err)
	}
	v, err := c.ValidateShippingChannelWithResponse(ctx, ch.Id, nil)
	if err != nil || v.JSON200.Data.Status != "active" {
		t.Fatalf("validate: %v", err)
	}

	// A shipment: pending at once, created a moment later, with its label.
	created, err := c.CreateShipmentWithResponse(ctx, nil, shipmentInput(ch.Id, unique("ORDER"), "60200"))
	if err != nil {
		t.Fatal(err)
	}
	shID := created.JSON201.Data.Id
	sh, err := c.WaitForShipment(ctx, shID, shipd.ShipmentStatusCreated, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if sh.ProviderShipmentId == nil {
		t.Fatal("a created shipment without the carrier's id")
	}
	label, err := c.GetShipmentLabelWithResponse(ctx, shID, nil)
	if err != nil {
		t.Fatal(err)
	}
	var file bytes.Buffer
	n, err := c.DownloadLabel(ctx, shID, &file)
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 || !bytes.Equal(file.Bytes(), label.JSON200.Data.Label.Content) || !bytes.HasPrefix(file.Bytes(), []byte("%PDF-")) {
		t.Fatalf("downloaded %d bytes that are not the label's PDF (%d bytes)", n, len(label.JSON200.Data.Label.Content))
	}
	if _, err := c.ReplaceShipmentWithResponse(ctx, shID, shipd.UpdateShipment{ReferenceNumber: ptr(unique("ORDER")), Metadata: &map[string]any{"order": 1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateShipmentWithResponse(ctx, shID, shipd.UpdateShipment{Metadata: &map[string]any{"order": 2}}); err != nil {
		t.Fatal(err)
	}
	if !contains(t, c.Shipments(ctx, &shipd.ListShipmentsParams{ShippingChannelId: ptr(ch.Id)}), func(s shipd.ShipmentSummary) bool { return s.Id == shID }) {
		t.Fatal("shipment not listed")
	}

	// Its tracking parcels, and one of a parcel shipped elsewhere.
	tp, err := c.CreateTrackingParcelWithResponse(ctx, nil, shipd.CreateTrackingParcel{
		TrackingNumber: "SB000000014CZ", ShippingChannelId: ch.Id, RecipientName: ptr("Jana Nováková"),
	})
	if err != nil {
		t.Fatal(err)
	}
	tpID := tp.JSON201.Data.Id
	if _, err := c.GetTrackingParcelWithResponse(ctx, tpID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ReplaceTrackingParcelWithResponse(ctx, tpID, shipd.UpdateTrackingParcel{RecipientName: ptr("Jana N.")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateTrackingParcelWithResponse(ctx, tpID, shipd.UpdateTrackingParcel{ExternalData: &map[string]any{"crm": "42"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RefreshTrackingParcelWithResponse(ctx, tpID, nil); err != nil {
		t.Fatal(err)
	}
	if !contains(t, c.TrackingParcels(ctx, &shipd.ListTrackingParcelsParams{ShippingChannelId: ptr(ch.Id)}), func(p shipd.TrackingParcelSummary) bool { return p.Id == tpID }) {
		t.Fatal("tracking parcel not listed")
	}
	if _, err := c.DeleteTrackingParcelWithResponse(ctx, tpID); err != nil {
		t.Fatal(err)
	}

	// A shipment whose label the sandbox fails to print 9 times: the
	// carrier's id is shown while the label is fetched, the label can be
	// asked for again, and the shipment cancelled meanwhile.
	held, err := c.CreateShipmentWithResponse(ctx, nil, shipmentInput(ch.Id, unique("LABELFAIL-9-SDK"), "60200"))
	if err != nil {
		t.Fatal(err)
	}
	heldID := held.JSON201.Data.Id
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		res, err := c.GetShipmentWithResponse(ctx, heldID)
		if err != nil {
			t.Fatal(err)
		}
		if res.JSON200.Data.ProviderShipmentId != nil {
			if res.JSON200.Data.Status != shipd.ShipmentStatusPending || (res.JSON200.Data.HasLabel != nil && *res.JSON200.Data.HasLabel) {
				t.Fatalf("a shipment whose label is being fetched is %s, has_label %v", res.JSON200.Data.Status, res.JSON200.Data.HasLabel)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the carrier's id never shown")
		}
	}
	if res, err := c.RetryShipmentLabelWithResponse(ctx, heldID, nil); err != nil || res.JSON202 == nil || res.JSON202.Data.Id != heldID {
		t.Fatalf("retry label: %v", err)
	}
	if res, err := c.CancelShipmentWithResponse(ctx, heldID, nil); err != nil || res.JSON200.Data.Status != shipd.ShipmentStatusCancelled {
		t.Fatalf("cancel while the label is fetched: %v", err)
	}

	// Cancelled with the carrier; a refused shipment is deleted instead.
	if res, err := c.CancelShipmentWithResponse(ctx, shID, nil); err != nil || res.JSON200.Data.Status != shipd.ShipmentStatusCancelled {
		t.Fatalf("cancel: %v", err)
	}
	refused, err := c.CreateShipmentWithResponse(ctx, nil, shipmentInput(ch.Id, unique("REFUSED"), "99999"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitForShipment(ctx, refused.JSON201.Data.Id, shipd.ShipmentStatusCreated, 100*time.Millisecond); err == nil {
		t.Fatal("postal code 99999 was booked")
	}
	if _, err := c.DeleteShipmentWithResponse(ctx, refused.JSON201.Data.Id); err != nil {
		t.Fatal(err)
	}

	// What the receiver heard, and shipd's log of it.
	d := rcv.await(t, ctx, "shipment.updated", shID)
	ev, err := shipd.VerifyWebhook(secret, d.header, d.body)
	if err != nil {
		t.Fatal(err)
	}
	updated, err := ev.AsEventShipmentUpdated()
	if err != nil || updated.Data.Shipment.Id != shID {
		t.Fatalf("event %s is not of shipment %s (%v)", d.body, shID, err)
	}
	var logID string
	for log, err := range c.WebhookLogs(ctx, subID, &shipd.ListWebhookLogsParams{EventType: ptr(shipd.EventTypeShipmentUpdated)}) {
		if err != nil {
			t.Fatal(err)
		}
		logID = log.Id
	}
	if logID == "" {
		t.Fatal("no log of the shipment.updated delivery")
	}
	if res, err := c.GetWebhookLogWithResponse(ctx, subID, logID); err != nil || res.JSON200.Data.Status != "success" {
		t.Fatalf("log %s: %v", logID, err)
	}

	// Deleted: the subscription, and a channel that has no shipments.
	if _, err := c.DeleteWebhookSubscriptionWithResponse(ctx, subID); err != nil {
		t.Fatal(err)
	}
	spare := newChannel(t, ctx, c, unique("spare"), "b", false)
	if _, err := c.DeleteShippingChannelWithResponse(ctx, spare.Id); err != nil {
		t.Fatal(err)
	}
	var e *shipd.Error
	if _, err := c.GetShippingChannelWithResponse(ctx, spare.Id); !errors.As(err, &e) || e.Status != http.StatusNotFound {
		t.Fatalf("deleted channel: %v", err)
	}
}

// contains reads a list through its iterator until match holds. The lists
// are read models that trail a write by a moment, so it reads again for a
// few seconds before it says no.
func contains[T any](t *testing.T, seq func(func(T, error) bool), match func(T) bool) bool {
	t.Helper()
	for range 50 {
		for item, err := range seq {
			if err != nil {
				t.Fatal(err)
			}
			if match(item) {
				return true
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}
