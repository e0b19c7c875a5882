package shipd_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	shipd "shipd/sdk/go"
)

func ptr[T any](v T) *T { return &v }

func testContext(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}

// unique makes names no other test (or run) uses.
func unique(prefix string) string { return prefix + "-" + rand.Text()[:8] }

// newChannel creates a sandbox channel; validated, it is active.
func newChannel(t *testing.T, ctx context.Context, c *shipd.Client, name, clientSecret string, validate bool) shipd.ShippingChannel {
	t.Helper()
	res, err := c.CreateShippingChannelWithResponse(ctx, nil, shipd.CreateShippingChannel{
		Name: name, Provider: "sandbox",
		Settings: &map[string]any{"clientId": "a", "clientSecret": clientSecret},
	})
	if err != nil {
		t.Fatal(err)
	}
	ch := res.JSON201.Data
	if validate {
		v, err := c.ValidateShippingChannelWithResponse(ctx, ch.Id, nil)
		if err != nil {
			t.Fatal(err)
		}
		ch = v.JSON200.Data
	}
	return ch
}

func shipmentInput(channelID, reference, postalCode string) shipd.CreateShipment {
	return shipd.CreateShipment{
		ShippingChannelId:  channelID,
		ReferenceNumber:    ptr(reference),
		SenderContact:      shipd.ContactInput{CompanyName: ptr("Acme"), EmailAddress: "ship@acme.test", PhoneNumber: "+420111222333"},
		RecipientContact:   shipd.ContactInput{FirstName: ptr("Jana"), LastName: ptr("Nováková"), EmailAddress: "jana@example.test", PhoneNumber: "+420777888999"},
		OriginAddress:      shipd.AddressInput{StreetName: "Skladová", HouseNumber: "1", CityName: "Praha", PostalCode: "11000", CountryCode: "CZ"},
		DestinationAddress: shipd.AddressInput{StreetName: "Dlouhá", HouseNumber: "12", CityName: "Brno", PostalCode: postalCode, CountryCode: "CZ"},
		Parcels: &[]shipd.ParcelInput{
			{LengthDimension: 30, WidthDimension: 20, HeightDimension: 10, WeightAmount: 1.5},
			{LengthDimension: 20, WidthDimension: 20, HeightDimension: 20, WeightAmount: 2},
		},
	}
}

// delivery is one webhook POST shipd made to the receiver.
type delivery struct {
	header http.Header
	body   []byte
}

// receiver is a webhook endpoint on loopback: it keeps every delivery and
// answers 204.
type receiver struct {
	*httptest.Server
	mu         sync.Mutex
	deliveries []delivery
	arrived    chan struct{}
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{arrived: make(chan struct{}, 1000)}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.deliveries = append(r.deliveries, delivery{req.Header.Clone(), body})
		r.mu.Unlock()
		r.arrived <- struct{}{}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.Close)
	return r
}

// await returns the first delivery of the event type whose body mentions
// id, waiting for it. Every test shares one account, and a subscription
// hears all of its account's events, other tests' too.
func (r *receiver) await(t *testing.T, ctx context.Context, eventType, id string) delivery {
	t.Helper()
	for {
		r.mu.Lock()
		for _, d := range r.deliveries {
			if d.header.Get("X-Service-Event") == eventType && bytes.Contains(d.body, []byte(`"`+id+`"`)) {
				r.mu.Unlock()
				return d
			}
		}
		r.mu.Unlock()
		select {
		case <-r.arrived:
		case <-ctx.Done():
			t.Fatalf("no %s delivery of %s arrived", eventType, id)
		}
	}
}
