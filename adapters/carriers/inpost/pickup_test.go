package inpost

import (
	"context"
	"testing"

	"shipd/platform/carrier"
)

func lockerRequest(point string) carrier.ShipmentRequest {
	req := courierRequest()
	req.ProductType = ServiceLockerStandard
	req.Parcels = req.Parcels[:1]
	req.PickupPoint = point
	return req
}

// Lockers take the shipment's own point, else the channel's
// defaultPickupPoint, else its earlier name targetPoint; couriers take none.
func TestPickupPointPerShipment(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		settings  carrier.Settings
		requested string
		want      string
	}{
		{"the shipment's point", carrier.Settings{"defaultPickupPoint": "KRA010", "targetPoint": "POZ08M"}, "WAW22A", "WAW22A"},
		{"the channel's default", carrier.Settings{"defaultPickupPoint": "KRA010", "targetPoint": "POZ08M"}, "", "KRA010"},
		{"the default's earlier name", carrier.Settings{"targetPoint": "POZ08M"}, "", "POZ08M"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			s := settingsFor(f)
			for k, v := range tc.settings {
				s[k] = v
			}
			if _, err := newCarrier(f).CreateShipment(ctx, s, lockerRequest(tc.requested)); err != nil {
				t.Fatal(err)
			}
			attrs := f.creates[0]["custom_attributes"].(map[string]any)
			if attrs["target_point"] != tc.want {
				t.Errorf("target_point %v, want %s", attrs["target_point"], tc.want)
			}
		})
	}
}

// A locker ShipX does not know is the shipment's pickup point refused with
// ShipX's words.
func TestUnknownLockerBlamesThePickupPoint(t *testing.T) {
	f := newFake(t)
	_, err := newCarrier(f).CreateShipment(context.Background(), settingsFor(f), lockerRequest("XXX999"))
	rejection(t, err, carrier.PickupPointField, "InPost: custom_attributes.target_point does_not_exist")
}

// Courier services deliver to the address: a point named per shipment is
// refused before ShipX is called, and the channel's default locker is not
// sent with them.
func TestCourierTakesNoPickupPoint(t *testing.T) {
	f := newFake(t)
	c := newCarrier(f)
	s := settingsFor(f)
	s["defaultPickupPoint"] = "KRA010"
	req := courierRequest()
	req.PickupPoint = "KRA010"
	_, err := c.CreateShipment(context.Background(), s, req)
	rejection(t, err, carrier.PickupPointField, "takes no pickup point")
	if n := len(f.callLog()); n != 0 {
		t.Errorf("a refused shipment called ShipX %d times", n)
	}
	req.PickupPoint = ""
	if _, err := c.CreateShipment(context.Background(), s, req); err != nil {
		t.Fatal(err)
	}
	if attrs, ok := f.creates[0]["custom_attributes"]; ok {
		t.Errorf("courier shipment sent custom_attributes %v", attrs)
	}
}

// Info publishes each product's use of a point and the default's setting,
// and channels set up with the earlier targetPoint still validate.
func TestInfoPickupPoints(t *testing.T) {
	info := New(Config{}).Info()
	for _, p := range info.ProductTypes {
		want := carrier.PickupPointNone
		if p.Code == ServiceLockerStandard {
			want = carrier.PickupPointRequired
		}
		if p.PickupPoint != want {
			t.Errorf("%s: pickup point %q, want %q", p.Code, p.PickupPoint, want)
		}
	}
	for _, settings := range []map[string]any{
		{"apiToken": "t", "organizationId": "1", "defaultPickupPoint": "KRA010"},
		{"apiToken": "t", "organizationId": "1", "targetPoint": "KRA010"},
	} {
		if errs := info.ValidateSettings(settings); len(errs) != 0 {
			t.Errorf("%v refused: %v", settings, errs)
		}
	}
	s := carrier.Settings{"targetPoint": "KRA010"}
	if msg := info.CheckPickupPoint(ServiceLockerStandard, s, ""); msg != "" {
		t.Errorf("a channel with targetPoint needs a point per locker shipment: %s", msg)
	}
}
