package shipd_test

import (
	"bytes"
	"errors"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	shipd "shipd/sdk/go"
)

// TestShippingDay walks the dispatch operations as a user of the SDK would
// at the end of a day: the windows the sandbox collects in, a courier
// pickup ordered, read, listed and cancelled, a manifest of a created
// shipment with its PDF, and the webhooks each raised.
func TestShippingDay(t *testing.T) {
	t.Parallel()
	ctx := testContext(t, 2*time.Minute)
	c, rec := newClient(t, apiKey)

	rcv := newReceiver(t)
	secret := "sdk-go-dispatch-secret"
	events := []shipd.EventType{shipd.EventTypePickupCreated, shipd.EventTypePickupCancelled, shipd.EventTypeManifestCreated}
	if _, err := c.CreateWebhookSubscriptionWithResponse(ctx, nil, shipd.CreateWebhookSubscription{
		Name: "dispatch", Url: rcv.URL, Secret: &secret, Events: events,
	}); err != nil {
		t.Fatal(err)
	}
	// A channel of its own: one active pickup per channel and date.
	ch := newChannel(t, ctx, c, unique("dispatch"), "b", true)

	providers, err := c.ListProvidersWithResponse(ctx)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(providers.JSON200.Data, func(p shipd.Provider) bool { return p.Code == "sandbox" })
	if i < 0 {
		t.Fatal("no sandbox provider")
	}
	if d := providers.JSON200.Data[i].Dispatch; !d.Pickups || !d.PickupCancel || d.Manifest != shipd.ProviderDispatchManifestShipd {
		t.Fatalf("the sandbox's dispatch: %+v", d)
	}

	// The windows of a weekday far enough ahead that no order-by time has
	// passed, and of a Sunday, when the sandbox does not collect.
	day := pickupDay(time.Now())
	avail, err := c.GetPickupAvailabilityWithResponse(ctx, ch.Id, &shipd.GetPickupAvailabilityParams{Date: shipd.Date{Time: day}})
	if err != nil {
		t.Fatal(err)
	}
	a := avail.JSON200.Data
	var windows []string
	for _, w := range a.Windows {
		windows = append(windows, w.ReadyFrom+"-"+w.ReadyUntil+" by "+deref(w.OrderBy))
	}
	if a.ShippingChannelId != ch.Id || a.Date.Format(time.DateOnly) != day.Format(time.DateOnly) ||
		a.Source != shipd.PickupAvailabilityResponseDataSourceCarrier ||
		!slices.Equal(windows, []string{"09:00-12:00 by 08:00", "12:00-17:00 by 11:00"}) {
		t.Fatalf("availability on %s: %+v (windows %q)", day.Format(time.DateOnly), a, windows)
	}
	sunday := day.AddDate(0, 0, int(7-day.Weekday()))
	if res, err := c.GetPickupAvailabilityWithResponse(ctx, ch.Id, &shipd.GetPickupAvailabilityParams{Date: shipd.Date{Time: sunday}}); err != nil || len(res.JSON200.Data.Windows) != 0 {
		t.Fatalf("windows on Sunday %s: %v", sunday.Format(time.DateOnly), err)
	}

	// A pickup of counted parcels, from an address and contact named here.
	order := shipd.CreatePickup{
		ShippingChannelId: ch.Id, Date: shipd.Date{Time: day}, ReadyFrom: "09:30", ReadyUntil: "12:00",
		Address:     &shipd.AddressInput{StreetName: "Skladová", HouseNumber: "7", CityName: "Praha", PostalCode: "11000", CountryCode: "CZ"},
		Contact:     &shipd.PickupContactInput{CompanyName: ptr("Acme"), FirstName: ptr("Petr"), PhoneNumber: "+420111222333"},
		ParcelCount: ptr(3), TotalWeightKg: ptr(float32(4.5)), Note: ptr("Ring at gate 2"),
	}
	ordered, err := c.OrderPickupWithResponse(ctx, nil, order)
	if err != nil {
		t.Fatal(err)
	}
	p := ordered.JSON201.Data
	number := regexp.MustCompile(`^SBC-` + day.Format("20060102") + `-[0-9A-F]{8}$`)
	if p.Status != shipd.PickupStatusScheduled || p.ShippingChannelId != ch.Id || p.Provider != "sandbox" ||
		p.Date.Format(time.DateOnly) != day.Format(time.DateOnly) || p.ReadyFrom != "09:30" || p.ReadyUntil != "12:00" ||
		p.ConfirmationNumber == nil || !number.MatchString(*p.ConfirmationNumber) ||
		deref(p.Confirmed.Date) != day.Format(time.DateOnly) || deref(p.Confirmed.ReadyFrom) != "09:30" ||
		p.Address.HouseNumber != "7" || p.Contact.FirstName != "Petr" || p.Contact.PhoneNumber != "+420111222333" ||
		p.ParcelCount != 3 || p.TotalWeightKg != 4.5 || len(p.ShipmentIds) != 0 || p.Note != "Ring at gate 2" || p.CancelledAt != nil {
		t.Fatalf("ordered pickup: %+v", p)
	}
	// A second one for the channel and date is refused on date.
	var e *shipd.Error
	if _, err := c.OrderPickupWithResponse(ctx, nil, order); !errors.As(err, &e) || e.Status != http.StatusUnprocessableEntity || len(e.Fields["date"]) == 0 {
		t.Fatalf("a second pickup for %s: %v", day.Format(time.DateOnly), err)
	}
	got, err := c.GetPickupWithResponse(ctx, p.Id)
	if err != nil || got.JSON200.Data.ConfirmationNumber == nil || *got.JSON200.Data.ConfirmationNumber != *p.ConfirmationNumber {
		t.Fatalf("get pickup %s: %v", p.Id, err)
	}
	scheduled := &shipd.ListPickupsParams{ShippingChannelId: &ch.Id, Date: &shipd.Date{Time: day}, Status: ptr(shipd.ListPickupsParamsStatusScheduled)}
	if !contains(t, c.Pickups(ctx, scheduled), func(l shipd.Pickup) bool { return l.Id == p.Id && l.Status == shipd.PickupStatusScheduled }) {
		t.Fatal("pickup not listed as scheduled")
	}
	cancelled, err := c.CancelPickupWithResponse(ctx, p.Id)
	if err != nil || cancelled.JSON200.Data.Status != shipd.PickupStatusCancelled || cancelled.JSON200.Data.CancelledAt == nil {
		t.Fatalf("cancel pickup: %v", err)
	}
	if _, err := c.CancelPickupWithResponse(ctx, p.Id); !errors.As(err, &e) || e.Status != http.StatusConflict {
		t.Fatalf("a second cancel: %v", err)
	}
	if !contains(t, c.Pickups(ctx, &shipd.ListPickupsParams{ShippingChannelId: &ch.Id, Status: ptr(shipd.ListPickupsParamsStatusCancelled)}),
		func(l shipd.Pickup) bool { return l.Id == p.Id }) {
		t.Fatal("pickup not listed as cancelled")
	}

	// A manifest of a shipment the carrier created. The dispatch module
	// learns of shipments from their events, a moment after the carrier's
	// answer: until then it refuses the id, naming it, and asks to try again.
	created, err := c.CreateShipmentWithResponse(ctx, nil, shipmentInput(ch.Id, unique("MANIFEST"), "60200"))
	if err != nil {
		t.Fatal(err)
	}
	shID := created.JSON201.Data.Id
	if _, err := c.WaitForShipment(ctx, shID, shipd.ShipmentStatusCreated, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	var m shipd.Manifest
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		res, err := c.CreateManifestWithResponse(ctx, nil, shipd.CreateManifest{ShippingChannelId: ch.Id, ShipmentIds: &[]string{shID}})
		if err == nil {
			m = res.JSON201.Data
			break
		}
		if !errors.As(err, &e) || e.Status != http.StatusUnprocessableEntity || len(e.Fields["shipment_ids.0"]) == 0 || time.Now().After(deadline) {
			t.Fatalf("create manifest: %v", err)
		}
	}
	if m.Status != shipd.ManifestStatusCreated || m.ShippingChannelId != ch.Id || !slices.Equal(m.ShipmentIds, []string{shID}) ||
		m.ShipmentCount != 1 || m.ParcelCount != 2 || m.TotalWeightKg != 3.5 || m.Document != shipd.ManifestDocumentShipd ||
		m.OriginAddress.CityName != "Praha" || m.SenderContact.CompanyName != "Acme" || m.Date.Format(time.DateOnly) != m.CreatedAt.UTC().Format(time.DateOnly) {
		t.Fatalf("manifest: %+v", m)
	}
	if res, err := c.GetManifestWithResponse(ctx, m.Id); err != nil || !slices.Equal(res.JSON200.Data.ShipmentIds, []string{shID}) {
		t.Fatalf("get manifest %s: %v", m.Id, err)
	}
	if !contains(t, c.Manifests(ctx, &shipd.ListManifestsParams{ShippingChannelId: &ch.Id, Date: &m.Date}), func(l shipd.Manifest) bool { return l.Id == m.Id }) {
		t.Fatal("manifest not listed")
	}
	var pdf bytes.Buffer
	n, err := c.DownloadManifest(ctx, m.Id, &pdf)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(pdf.Len()) || !bytes.HasPrefix(pdf.Bytes(), []byte("%PDF-")) {
		t.Fatalf("the manifest's document: %d bytes, %q…", n, pdf.Bytes()[:min(pdf.Len(), 16)])
	}
	last := rec.exchanges()[len(rec.exchanges())-1]
	if last.operation != "downloadManifestDocument" || last.header.Get("Content-Type") != "application/pdf" ||
		!strings.Contains(last.header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("the document came as %s %q, %q", last.operation, last.header.Get("Content-Type"), last.header.Get("Content-Disposition"))
	}
	if _, err := c.DownloadManifest(ctx, "mnf_DOESNOTEXIST", &pdf); !errors.As(err, &e) || e.Status != http.StatusNotFound {
		t.Fatalf("an unknown manifest's document: %v", err)
	}

	// The webhooks, each verified and read as its own event type.
	for _, ev := range []struct {
		typ shipd.EventType
		id  string
	}{{shipd.EventTypePickupCreated, p.Id}, {shipd.EventTypePickupCancelled, p.Id}, {shipd.EventTypeManifestCreated, m.Id}} {
		d := rcv.await(t, ctx, string(ev.typ), ev.id)
		event, err := shipd.VerifyWebhook(secret, d.header, d.body)
		if err != nil {
			t.Fatalf("%s: %v", ev.typ, err)
		}
		value, err := event.ValueByDiscriminator()
		if err != nil {
			t.Fatalf("%s: %v", ev.typ, err)
		}
		var id string
		switch v := value.(type) {
		case shipd.EventPickupCreated:
			id = v.Data.Pickup.Id
			if v.Data.Pickup.Status != shipd.PickupStatusScheduled {
				t.Fatalf("pickup.created of a %s pickup", v.Data.Pickup.Status)
			}
		case shipd.EventPickupCancelled:
			id = v.Data.Pickup.Id
			if v.Data.Pickup.Status != shipd.PickupStatusCancelled {
				t.Fatalf("pickup.cancelled of a %s pickup", v.Data.Pickup.Status)
			}
		case shipd.EventManifestCreated:
			id = v.Data.Manifest.Id
			if !slices.Equal(v.Data.Manifest.ShipmentIds, []string{shID}) {
				t.Fatalf("manifest.created of %v", v.Data.Manifest.ShipmentIds)
			}
		default:
			t.Fatalf("%s read as %T", ev.typ, value)
		}
		if id != ev.id {
			t.Fatalf("%s of %s, not %s", ev.typ, id, ev.id)
		}
	}
}

// pickupDay is the first weekday at least two days after now (UTC): the
// sandbox collects on it in both its windows, and their order-by times are
// still ahead.
func pickupDay(now time.Time) time.Time {
	y, m, d := now.UTC().Date()
	day := time.Date(y, m, d+2, 0, 0, 0, 0, time.UTC)
	for day.Weekday() == time.Saturday || day.Weekday() == time.Sunday {
		day = day.AddDate(0, 0, 1)
	}
	return day
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
