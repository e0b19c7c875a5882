package shipd_test

import (
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"os"
	"time"

	shipd "shipd/sdk/go"
)

// The README's example, compiled with the tests so it stays true (it has
// no Output, so it is not run: it needs a shipd at the address).
func Example() {
	ctx := context.Background()
	var shipment shipd.CreateShipment // contacts, addresses and parcels as in shipmentInput
	c, _ := shipd.New("http://127.0.0.1:8080", os.Getenv("SHIPD_API_KEY"))
	ch, _ := c.CreateShippingChannelWithResponse(ctx, nil, shipd.CreateShippingChannel{Name: "Sandbox", Provider: "sandbox",
		Settings: &map[string]any{"clientId": "a", "clientSecret": "b"}})
	c.ValidateShippingChannelWithResponse(ctx, ch.JSON201.Data.Id, nil) // the channel becomes active
	shipment.ShippingChannelId = ch.JSON201.Data.Id
	res, err := c.CreateShipmentWithResponse(ctx, nil, shipment)
	var e *shipd.Error
	if errors.As(err, &e) {
		log.Fatalf("%d %s %v (request %s)", e.Status, e.Code, e.Fields, e.RequestID)
	}
	sh, _ := c.WaitForShipment(ctx, res.JSON201.Data.Id, shipd.ShipmentStatusCreated, time.Second)
	f, _ := os.Create(sh.Id + ".pdf")
	c.DownloadLabel(ctx, sh.Id, f) // the label file, streamed

	secret := os.Getenv("SHIPD_WEBHOOK_SECRET")
	http.HandleFunc("/shipd", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		event, err := shipd.VerifyWebhook(secret, r.Header, body)
		if err != nil { // errors.Is(err, shipd.ErrSignatureMismatch), ErrTimestampStale, ErrMalformedHeader
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		if created, err := event.AsEventShipmentCreated(); err == nil {
			log.Print(created.Data.Shipment.Id)
		}
		w.WriteHeader(http.StatusNoContent)
	})
}

// The README's end of the day: a courier for the day's shipments, and
// their handover manifest with its PDF.
func Example_shippingDay() {
	ctx := context.Background()
	c, _ := shipd.New("http://127.0.0.1:8080", os.Getenv("SHIPD_API_KEY"))
	chID, shID := "ch_…", "sh_…" // an active channel, a shipment of it the carrier created
	day := shipd.Date{Time: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)}
	w, _ := c.GetPickupAvailabilityWithResponse(ctx, chID, &shipd.GetPickupAvailabilityParams{Date: day}) // windows, order-by times
	p, _ := c.OrderPickupWithResponse(ctx, nil, shipd.CreatePickup{ShippingChannelId: chID, Date: day,
		ReadyFrom: w.JSON200.Data.Windows[0].ReadyFrom, ReadyUntil: w.JSON200.Data.Windows[0].ReadyUntil,
		ShipmentIds: &[]string{shID}}) // 201 scheduled, with the carrier's confirmation_number
	log.Print(*p.JSON201.Data.ConfirmationNumber)
	m, _ := c.CreateManifestWithResponse(ctx, nil, shipd.CreateManifest{ShippingChannelId: chID}) // every created shipment on no manifest
	f, _ := os.Create(m.JSON201.Data.Id + ".pdf")
	c.DownloadManifest(ctx, m.JSON201.Data.Id, f) // the handover PDF, streamed
	// The day's pickups, every page.
	for pickup, err := range c.Pickups(ctx, &shipd.ListPickupsParams{Date: &day}) {
		if err != nil {
			log.Fatal(err)
		}
		log.Print(pickup.Id, pickup.Status)
	}
}
