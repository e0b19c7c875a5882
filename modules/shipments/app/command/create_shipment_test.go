package command_test

import (
	"errors"
	"slices"
	"testing"

	channels "shipd/modules/channels/contract"
	"shipd/modules/channels/contract/channelstest"
	"shipd/modules/shipments/app/command"
	"shipd/modules/shipments/domain"
	"shipd/platform/fault"
	"shipd/platform/faulttest"
)

// A request its channel or carrier cannot take is refused field by field,
// and nothing is stored or published.
func TestCreateRefusesWhatTheChannelOrCarrierCannotTake(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		setup func(*channelstest.Channels)
		cmd   func(*command.CreateShipment)
		want  map[string]string
	}{
		{name: "channel not found", cmd: func(c *command.CreateShipment) { c.Shipment.ChannelID = "ch_none" },
			want: map[string]string{"shipping_channel_id": "does not name a shipping channel of this account"}},
		{name: "channel inactive", setup: channelstest.Changed("ch_1", func(ch *channels.ChannelAccess) { ch.Status = "invalid" }),
			want: map[string]string{"shipping_channel_id": "this one is invalid; validate it first"}},
		// A request's own problems are answered before its channel is
		// looked up (ADR 0036): the unknown channel is not named.
		{name: "the request's own problems first", cmd: func(c *command.CreateShipment) {
			c.Shipment.ChannelID, c.Shipment.Recipient.EmailAddress = "ch_none", "not an address"
		}, want: map[string]string{"recipient_contact.email_address": "must be a valid email address"}},
		{name: "provider not offered", setup: channelstest.Changed("ch_1", func(ch *channels.ChannelAccess) { ch.Provider = "gone" }),
			want: map[string]string{"shipping_channel_id": "provider gone cannot create shipments"}},
		{name: "provider only tracks", setup: channelstest.Changed("ch_1", func(ch *channels.ChannelAccess) { ch.Provider = trackerOnlyCode }),
			want: map[string]string{"shipping_channel_id": "provider trackonly cannot create shipments"}},
		{name: "label format not printed", cmd: func(c *command.CreateShipment) { c.Shipment.LabelFormat = "EPL" },
			want: map[string]string{"label_format": "provider fake prints only: pdf, zpl"}},
		{name: "channel's default format not printed", setup: channelstest.Changed("ch_1", func(ch *channels.ChannelAccess) { ch.Settings["defaultLabelFormat"] = "epl" }),
			want: map[string]string{"label_format": "prints only"}},
		{name: "more parcels than the provider takes", cmd: func(c *command.CreateShipment) { *c = request(c.ShipmentID, 6) },
			want: map[string]string{"parcels": "provider fake takes at most 5 parcels per shipment; this shipment has 6"}},
		{name: "more parcels than the product takes", setup: channelstest.Changed("ch_1", func(ch *channels.ChannelAccess) { ch.Settings["productType"] = "EXPRESS" }),
			cmd:  func(c *command.CreateShipment) { *c = request(c.ShipmentID, 3) },
			want: map[string]string{"parcels": "product EXPRESS of provider fake takes at most 2 parcels per shipment; this shipment has 3"}},
		{name: "a one-parcel product", setup: channelstest.Changed("ch_1", func(ch *channels.ChannelAccess) { ch.Settings["productType"] = "LETTER" }),
			cmd:  func(c *command.CreateShipment) { *c = request(c.ShipmentID, 2) },
			want: map[string]string{"parcels": "takes at most 1 parcel per shipment; this shipment has 2"}},
		{name: "COD the provider lacks", setup: channelstest.Changed("ch_1", func(ch *channels.ChannelAccess) { ch.Provider = noCODCode }),
			cmd:  withCOD,
			want: map[string]string{"cash_on_delivery_amount": "provider nocod does not support cash on delivery"}},
		{name: "COD the product lacks", setup: channelstest.Changed("ch_1", func(ch *channels.ChannelAccess) { ch.Settings["productType"] = "ECONOMY" }),
			cmd:  withCOD,
			want: map[string]string{"cash_on_delivery_amount": "product ECONOMY of provider fake does not support cash on delivery"}},
		{name: "no pickup point where the product needs one", setup: channelstest.Changed("ch_1", func(ch *channels.ChannelAccess) { ch.Settings["productType"] = "POINT" }),
			want: map[string]string{"pickup_point_id": "product POINT of provider fake delivers only to a pickup point"}},
		{name: "a pickup point where the product takes none", cmd: func(c *command.CreateShipment) { c.Shipment.PickupPoint = "KRA010" },
			want: map[string]string{"pickup_point_id": "product STANDARD of provider fake delivers to the address and takes no pickup point"}},
		{name: "every problem at once", setup: channelstest.Changed("ch_1", func(ch *channels.ChannelAccess) { ch.Settings["productType"] = "ECONOMY" }),
			cmd: func(c *command.CreateShipment) {
				*c = request(c.ShipmentID, 7)
				c.Shipment.LabelFormat = "epl"
				withCOD(c)
			},
			want: map[string]string{"label_format": "prints only", "parcels": "at most 5", "cash_on_delivery_amount": "ECONOMY"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			if tc.setup != nil {
				tc.setup(f.channels)
			}
			cmd := request("sh_1", 1)
			if tc.cmd != nil {
				tc.cmd(&cmd)
			}
			faulttest.WantFields(t, f.create.Handle(t.Context(), cmd), tc.want)
			if _, err := f.repo.Get(t.Context(), "sh_1"); !fault.Is(err, fault.KindNotFound) {
				t.Errorf("a refused shipment was stored (%v)", err)
			}
			if got := f.repo.Published(); len(got) != 0 {
				t.Errorf("a refused shipment published %v", got)
			}
		})
	}
}

// A channel the account may not use, or that cannot be asked about now, is
// answered as the channels facade answered: forbidden or unavailable, not a
// field of the request.
func TestCreatePassesOnWhatTheChannelsFacadeSays(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		setup func(*channelstest.Channels)
		want  fault.Kind
	}{
		{"another account's channel", channelstest.Changed("ch_1", func(ch *channels.ChannelAccess) { ch.AccountID = stranger }), fault.KindForbidden},
		{"channels unavailable", func(c *channelstest.Channels) { c.Fail("ch_1", fault.Unavailable("channels is down")) }, fault.KindUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			tc.setup(f.channels)
			faulttest.WantKind(t, f.create.Handle(t.Context(), request("sh_1", 1)), tc.want)
			if got := f.repo.Published(); len(got) != 0 {
				t.Errorf("published %v", got)
			}
		})
	}
}

// The product and label format come from the request, else the channel's
// settings, else the provider's defaults; cash on delivery switches to the
// product that carries it.
func TestCreateChoosesProductAndLabelFormat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		settings      map[string]any
		format        string
		cod           bool
		wantProduct   string
		wantFormat    string
		wantCODAmount int64
	}{
		{name: "the provider's defaults", wantProduct: "STANDARD", wantFormat: "pdf"},
		{name: "the channel's choices", settings: map[string]any{"productType": "EXPRESS", "defaultLabelFormat": "ZPL"},
			wantProduct: "EXPRESS", wantFormat: "zpl"},
		{name: "the request's format over the channel's", settings: map[string]any{"defaultLabelFormat": "zpl"}, format: "PDF",
			wantProduct: "STANDARD", wantFormat: "pdf"},
		{name: "COD switches to the COD product", cod: true, wantProduct: "STANDARD_COD", wantFormat: "pdf", wantCODAmount: 15000},
		{name: "COD on a product that carries it", settings: map[string]any{"productType": "EXPRESS"}, cod: true,
			wantProduct: "EXPRESS", wantFormat: "pdf", wantCODAmount: 15000},
		{name: "COD on a product the provider does not list", settings: map[string]any{"productType": "SPECIAL"}, cod: true,
			wantProduct: "SPECIAL", wantFormat: "pdf", wantCODAmount: 15000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture()
			ch := activeChannel()
			for k, v := range tc.settings {
				ch.Settings[k] = v
			}
			f.channels.Put(ch)
			cmd := request("sh_1", 1)
			cmd.Shipment.LabelFormat = tc.format
			if tc.cod {
				withCOD(&cmd)
			}
			f.created(t, cmd)
			st := f.state(t, "sh_1")
			if st.ProductType != tc.wantProduct || st.LabelFormat != tc.wantFormat {
				t.Errorf("product %q, format %q; want %q, %q", st.ProductType, st.LabelFormat, tc.wantProduct, tc.wantFormat)
			}
			switch {
			case tc.wantCODAmount == 0 && st.COD != nil:
				t.Errorf("cash on delivery %+v, asked for none", st.COD)
			case tc.wantCODAmount != 0 && (st.COD == nil || st.COD.AmountMinor != tc.wantCODAmount || st.COD.Currency != "CZK" || st.COD.CollectedAt != nil):
				t.Errorf("cash on delivery %+v, want %d CZK not collected", st.COD, tc.wantCODAmount)
			}
		})
	}
}

// A provider that publishes no default product books its first, and one
// without products books none named.
func TestCreateFallsBackToTheFirstProduct(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.carrier.info.Settings = nil
	f.created(t, request("sh_1", 1))
	if got := f.state(t, "sh_1").ProductType; got != "ECONOMY" {
		t.Errorf("product %q, want the first the provider lists", got)
	}
	f.carrier.info.ProductTypes = nil
	f.created(t, request("sh_2", 1))
	if got := f.state(t, "sh_2").ProductType; got != "" {
		t.Errorf("product %q of a provider that lists none", got)
	}
}

// An accepted shipment is stored pending under the id the caller chose,
// for the account and the channel's provider, and shipment.requested
// carries it.
func TestCreateStoresThePendingShipment(t *testing.T) {
	t.Parallel()
	f := newFixture()
	cmd := request("sh_new", 2)
	// A request names no account, provider or status (domain.Request has
	// none); the one thing of the carrier's it could carry, a parcel's
	// tracking number, is not taken from it.
	forged := "TN-forged"
	cmd.Shipment.Parcels[0].TrackingNumber = &forged
	f.created(t, cmd)
	st := f.state(t, "sh_new")
	if st.ID != "sh_new" || st.AccountID != account || st.Provider != fakeCode || st.Status != domain.StatusPending ||
		st.IsSuccessful != nil || st.Version != 1 || !st.CreatedAt.Equal(t0) || len(st.Parcels) != 2 || st.ReferenceNumber != "ORDER-sh_new" {
		t.Errorf("stored %+v", st)
	}
	for i, p := range st.Parcels {
		if p.TrackingNumber != nil {
			t.Errorf("parcel %d: tracking number %q taken from the request", i, *p.TrackingNumber)
		}
	}
	if got := f.events(t, 0); !slices.Equal(got, []string{"shipment.requested v1 pending"}) {
		t.Errorf("events %v", got)
	}
	snap := f.lastSnapshot(t)
	if snap.ID != "sh_new" || snap.ShippingChannelID != "ch_1" || snap.ProductType != "STANDARD" || len(snap.Parcels) != 2 || snap.IsSuccessful != nil {
		t.Errorf("snapshot %+v", snap)
	}
	// Nothing asked the carrier: the booking worker does, later.
	if calls := f.carrier.Calls(); len(calls) != 0 {
		t.Errorf("the carrier was called: %v", calls)
	}
}

// A store that fails fails the request.
func TestCreateFailsWithTheStore(t *testing.T) {
	t.Parallel()
	f := newFixture()
	f.repo.Interfere(func(op, _ string) error { return errDatabase })
	if err := f.create.Handle(t.Context(), request("sh_1", 1)); !errors.Is(err, errDatabase) {
		t.Fatalf("error %v, want the store's", err)
	}
}
