package inpost

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"shipd/platform/carrier"
)

func newCarrier(f *fakeShipX) *Carrier {
	return New(Config{ProductionURL: "http://127.0.0.1:1/unused-production", SandboxURL: f.URL(), PollInterval: 5 * time.Millisecond})
}

func settingsFor(f *fakeShipX) carrier.Settings {
	return carrier.Settings{"apiToken": f.token, "organizationId": f.org, "sandboxMode": true}
}

// rejection asserts err is a single Rejection on field whose message has want.
func rejection(t *testing.T, err error, field, want string) {
	t.Helper()
	var r *carrier.Rejection
	if !errors.As(err, &r) {
		t.Fatalf("error = %v (%T), want a *carrier.Rejection on %s", err, err, field)
	}
	if r.Field != field || !strings.Contains(r.Message, want) {
		t.Fatalf("Rejection = {%q, %q}, want field %q and a message with %q", r.Field, r.Message, field, want)
	}
}

func unavailable(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, carrier.ErrUnavailable) {
		t.Fatalf("error = %v, want one wrapping carrier.ErrUnavailable", err)
	}
}

func TestInfo(t *testing.T) {
	info := New(Config{}).Info()
	if info.Code != "inpost" || !info.SupportsCOD || !slices.Equal(info.LabelFormats, []string{"pdf", "zpl", "epl"}) {
		t.Errorf("Info = %+v", info)
	}
	var codes []string
	for _, p := range info.ProductTypes {
		codes = append(codes, p.Code)
		if !p.SupportsCOD || p.CODProduct != "" {
			t.Errorf("product %s: COD without a product switch expected, got %+v", p.Code, p)
		}
	}
	if !slices.Equal(codes, productCodes) {
		t.Errorf("products %v, want %v", codes, productCodes)
	}
	keys := map[string]carrier.Setting{}
	for _, s := range info.Settings {
		keys[s.Key] = s
	}
	if !keys["apiToken"].Secret || !keys["apiToken"].Required || !keys["organizationId"].Required {
		t.Errorf("credential settings: %+v %+v", keys["apiToken"], keys["organizationId"])
	}
	if pt := keys["productType"]; pt.Default != ServiceCourierStandard || !slices.Equal(pt.Enum, productCodes) {
		t.Errorf("productType setting: %+v", pt)
	}
	if keys["sandboxMode"].Default != true || keys["defaultLabelFormat"].Default != "pdf" {
		t.Errorf("sandboxMode/defaultLabelFormat defaults: %+v %+v", keys["sandboxMode"], keys["defaultLabelFormat"])
	}
	for _, k := range []string{"defaultPickupPoint", "targetPoint", "sendingMethod"} {
		if s, ok := keys[k]; !ok || s.Required {
			t.Errorf("%s should be an optional setting: %+v", k, s)
		}
	}
	if errs := info.ValidateSettings(map[string]any{"apiToken": "t", "organizationId": "1"}); len(errs) != 0 {
		t.Errorf("minimal settings refused: %v", errs)
	}
	if got := New(Config{}).cfg; got.ProductionURL != ProductionURL || got.SandboxURL != SandboxURL || got.PollInterval != DefaultPollInterval {
		t.Errorf("New(Config{}) defaults: %+v", got)
	}
}

func TestValidateCredentials(t *testing.T) {
	f := newFake(t)
	c := newCarrier(f)
	ctx := context.Background()
	if err := c.ValidateCredentials(ctx, settingsFor(f)); err != nil {
		t.Fatalf("valid credentials: %v", err)
	}
	if got := f.callLog(); !slices.Equal(got, []string{"GET /v1/organizations/1234"}) {
		t.Errorf("calls = %v", got)
	}

	s := settingsFor(f)
	s["apiToken"] = "wrong"
	rejection(t, c.ValidateCredentials(ctx, s), "apiToken", "Token is missing or invalid")

	s = settingsFor(f)
	s["organizationId"] = "9999"
	rejection(t, c.ValidateCredentials(ctx, s), "organizationId", "Resource not found")

	s["organizationId"] = "forbidden"
	rejection(t, c.ValidateCredentials(ctx, s), "organizationId", "permission")

	before := len(f.callLog())
	rejection(t, c.ValidateCredentials(ctx, carrier.Settings{"organizationId": "1234"}), "apiToken", "required")
	rejection(t, c.ValidateCredentials(ctx, carrier.Settings{"apiToken": "x"}), "organizationId", "required")
	if len(f.callLog()) != before {
		t.Error("missing credentials still called ShipX")
	}
}

// TestStaticToken: ShipX has no login; every call carries the token as it
// is, so nothing is cached and a revoked token fails at once on apiToken.
func TestStaticToken(t *testing.T) {
	f := newFake(t)
	c := newCarrier(f)
	ctx := context.Background()
	s := settingsFor(f)
	out, err := c.CreateShipment(ctx, s, courierRequest())
	if err != nil {
		t.Fatal(err)
	}
	f.set(func(f *fakeShipX) { f.token = "rotated" })
	_, err = c.Labels(ctx, s, carrier.ShipmentRef{ProviderShipmentID: out.ProviderShipmentID}, "pdf")
	rejection(t, err, "apiToken", "Token is missing or invalid")

	s["apiToken"] = "rotated"
	if _, err := c.Labels(ctx, s, carrier.ShipmentRef{ProviderShipmentID: out.ProviderShipmentID}, "zpl"); err != nil {
		t.Fatalf("with the new token: %v", err)
	}
	for _, call := range f.callLog() {
		if !strings.HasPrefix(call, "POST /v1/organizations/") && !strings.HasPrefix(call, "GET /v1/shipments/") {
			t.Errorf("unexpected call %q (no token endpoint exists)", call)
		}
	}
}

func TestSandboxModePicksHost(t *testing.T) {
	prod, sandbox := newFake(t), newFake(t)
	c := New(Config{ProductionURL: prod.URL(), SandboxURL: sandbox.URL()})
	ctx := context.Background()
	for _, tc := range []struct {
		name             string
		mode             any
		wantProd, wantSb int
	}{
		{"absent means sandbox", nil, 0, 1},
		{"true", true, 0, 2},
		{"false", false, 1, 2},
	} {
		s := settingsFor(prod)
		if tc.mode == nil {
			delete(s, "sandboxMode")
		} else {
			s["sandboxMode"] = tc.mode
		}
		if err := c.ValidateCredentials(ctx, s); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if p, sb := len(prod.callLog()), len(sandbox.callLog()); p != tc.wantProd || sb != tc.wantSb {
			t.Errorf("%s: production got %d calls, sandbox %d; want %d, %d", tc.name, p, sb, tc.wantProd, tc.wantSb)
		}
	}
}

func TestUnavailable(t *testing.T) {
	f := newFake(t)
	c := newCarrier(f)
	s := settingsFor(f)
	ctx := context.Background()
	out, err := c.CreateShipment(ctx, s, courierRequest())
	if err != nil {
		t.Fatal(err)
	}
	ref := carrier.ShipmentRef{ProviderShipmentID: out.ProviderShipmentID, TrackingNumbers: out.TrackingNumbers}

	calls := map[string]func(context.Context) error{
		"validate": func(ctx context.Context) error { return c.ValidateCredentials(ctx, s) },
		"create":   func(ctx context.Context) error { _, err := c.CreateShipment(ctx, s, courierRequest()); return err },
		"labels":   func(ctx context.Context) error { _, err := c.Labels(ctx, s, ref, "pdf"); return err },
		"cancel":   func(ctx context.Context) error { return c.CancelShipment(ctx, s, ref) },
		"track": func(ctx context.Context) error {
			_, err := c.Track(ctx, s, carrier.TrackingRequest{TrackingNumber: out.TrackingNumbers[0]})
			return err
		},
	}
	f.set(func(f *fakeShipX) { f.down = true })
	for name, call := range calls {
		t.Run("503/"+name, func(t *testing.T) { unavailable(t, call(ctx)) })
	}
	f.set(func(f *fakeShipX) { f.down, f.hang = false, true })
	for name, call := range calls {
		t.Run("timeout/"+name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			start := time.Now()
			unavailable(t, call(ctx))
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("took %v after a 50ms deadline", d)
			}
		})
	}
}

// TestBookingPollsUntilDeadline: a shipment ShipX never confirms ends
// the call at the ctx deadline as unavailable, after polling.
func TestBookingPollsUntilDeadline(t *testing.T) {
	f := newFake(t)
	f.stepsToGo = -1
	c := newCarrier(f)
	ctx, cancel := context.WithTimeout(context.Background(), 80*time.Millisecond)
	defer cancel()
	_, err := c.CreateShipment(ctx, settingsFor(f), courierRequest())
	unavailable(t, err)
	polls := 0
	for _, call := range f.callLog() {
		if strings.HasPrefix(call, "GET /v1/shipments/") {
			polls++
		}
	}
	if polls < 2 {
		t.Errorf("polled %d times in 80ms at a 5ms interval", polls)
	}
}
